/**
 * An in-memory fake of the workflow service's *remote* external-task API, served over real HTTP, for
 * testing the worker client without the engine. It implements the contract of
 * ../shared/spec/interface-decisions.md ("External tasks"): locks with expiry, 409 `U409` for a task
 * locked by another worker or whose lock expired, long polling, and it records every request.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A task as the fake stores it. */
export interface FakeTask {
  id: string;
  topic: string;
  variables: Record<string, unknown>;
  retries: number;
  state: 'open' | 'completed' | 'failed' | 'bpmn-error' | 'incident';
  lockedBy: string | undefined;
  lockExpiresAt: number;
  availableAt: number;
  /** What the last report set: completion or BPMN error variables, failure message… */
  outcome: Record<string, unknown> | undefined;
}

/** One request the fake received. */
export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
  headers: IncomingMessage['headers'];
  at: number;
}

/** A canned answer that replaces the contract's behaviour for a request. */
export interface CannedResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The fake remote API; `start()` it, point a worker at `baseUrl`, `close()` it. */
export class FakeExternalTaskApi {
  readonly tasks = new Map<string, FakeTask>();
  readonly requests: RecordedRequest[] = [];
  /** Return a canned answer to override the contract for a request, or undefined to follow it. */
  intercept: (request: RecordedRequest) => CannedResponse | undefined = () => undefined;
  baseUrl = '';
  #server: Server | undefined;
  #counter = 0;

  /** Adds an open task of `topic`; returns its id. */
  addTask(topic: string, variables: Record<string, unknown> = {}, retries = 3): string {
    const id = `task-${++this.#counter}`;
    this.tasks.set(id, {
      id,
      topic,
      variables,
      retries,
      state: 'open',
      lockedBy: undefined,
      lockExpiresAt: 0,
      availableAt: 0,
      outcome: undefined,
    });
    return id;
  }

  /** The task with `id`; throws when there is none. */
  task(id: string): FakeTask {
    const task = this.tasks.get(id);
    if (task === undefined) throw new Error(`no task ${id}`);
    return task;
  }

  /** The recorded requests whose method and path match. */
  requestsTo(method: string, path: RegExp): RecordedRequest[] {
    return this.requests.filter((request) => request.method === method && path.test(request.path));
  }

  /** Listens on a free port of 127.0.0.1. */
  async start(): Promise<this> {
    const server = createServer((request, response) => void this.#handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#server = server;
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  /** Stops listening and drops open connections (long polls included). */
  async close(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const recorded: RecordedRequest = {
      method: request.method ?? '',
      path: request.url ?? '',
      body: text === '' ? undefined : (JSON.parse(text) as unknown),
      headers: request.headers,
      at: Date.now(),
    };
    this.requests.push(recorded);
    const canned = this.intercept(recorded);
    if (canned !== undefined) return send(response, canned.status, canned.body, canned.headers);
    const answer = await this.#follow(recorded, request);
    send(response, answer.status, answer.body);
  }

  async #follow(request: RecordedRequest, raw: IncomingMessage): Promise<CannedResponse> {
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (request.method === 'POST' && request.path === '/api/v1/external-tasks/fetch-and-lock') {
      return { status: 200, body: await this.#fetchAndLock(body, raw) };
    }
    const match = /^\/api\/v1\/external-tasks\/([^/]+)\/(complete|failure|bpmn-error|lock)$/.exec(
      request.path,
    );
    const task = match === null ? undefined : this.tasks.get(decodeURIComponent(match[1] ?? ''));
    if (match === null || task === undefined) return error(404, 'U404', 'Not found');
    const action = `${request.method} ${match[2] ?? ''}`;
    if (action === 'DELETE lock') {
      task.lockedBy = undefined;
      return { status: 204 };
    }
    if (task.state !== 'open' || task.lockedBy !== body.worker_id || task.lockExpiresAt <= Date.now()) {
      return error(409, 'U409', 'The task is locked by another worker or its lock has expired');
    }
    switch (action) {
      case 'POST complete':
        task.state = 'completed';
        task.outcome = { variables: body.variables };
        return { status: 204 };
      case 'POST failure': {
        const retries = body.retries as number;
        task.retries = retries;
        task.lockedBy = undefined;
        task.availableAt = Date.now() + (body.retry_timeout_ms as number);
        task.outcome = { error_message: body.error_message };
        if (retries === 0) task.state = 'incident';
        return { status: 204 };
      }
      case 'POST bpmn-error':
        task.state = 'bpmn-error';
        task.outcome = { error_code: body.error_code, variables: body.variables };
        return { status: 204 };
      case 'PATCH lock':
        task.lockExpiresAt = Date.now() + (body.new_duration_ms as number);
        return { status: 204 };
      default:
        return error(404, 'U404', 'Not found');
    }
  }

  async #fetchAndLock(body: Record<string, unknown>, raw: IncomingMessage): Promise<unknown[]> {
    const topics = new Map(
      (body.topics as { topic_name: string; lock_duration_ms: number }[]).map((topic) => [
        topic.topic_name,
        topic.lock_duration_ms,
      ]),
    );
    const deadline = Date.now() + ((body.async_response_timeout_ms as number | undefined) ?? 0);
    let gone = false;
    raw.socket.once('close', () => (gone = true));
    for (;;) {
      const now = Date.now();
      const ready = [...this.tasks.values()].filter(
        (task) =>
          task.state === 'open' &&
          topics.has(task.topic) &&
          task.availableAt <= now &&
          (task.lockedBy === undefined || task.lockExpiresAt <= now),
      );
      const locked = ready.slice(0, body.max_tasks as number);
      if (locked.length > 0 || now >= deadline || gone) {
        return locked.map((task) => {
          task.lockedBy = body.worker_id as string;
          task.lockExpiresAt = now + (topics.get(task.topic) ?? 0);
          return {
            id: task.id,
            topic_name: task.topic,
            process_instance_id: `instance-of-${task.id}`,
            activity_id: `activity-${task.topic}`,
            variables: task.variables,
            retries: task.retries,
            lock_expires_at: new Date(task.lockExpiresAt).toISOString(),
            org_id: 'org-1',
          };
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

function error(status: number, code: string, message: string): CannedResponse {
  return { status, body: { code, message } };
}

function send(
  response: ServerResponse,
  status: number,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  if (body === undefined) {
    response.writeHead(status, headers).end();
  } else {
    response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  }
}
