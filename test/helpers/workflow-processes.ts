import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.js';

// Real `weft workflow` processes on one test database, for the tests that kill or freeze one: the
// leadership tests (failover on SIGKILL, a frozen leader on SIGSTOP) and the batch crash test.

const repository = fileURLToPath(new URL('../../', import.meta.url));

/** The bootstrap admin of every service these helpers start. */
export const admin = { email: 'admin@example.com', password: 'failover admin password' };

/** A `weft workflow` process and how to reach it. */
export interface Service {
  name: string;
  child: ChildProcess;
  base: string;
  output: () => string;
}

/**
 * Starts `weft workflow` from the sources as its own process on `databaseUrl`, with `env` added
 * (e.g. a short leader lease), and waits until it listens.
 */
export async function startService(
  name: string,
  options: { databaseUrl: string; dataDir: string; env?: Record<string, string> },
): Promise<Service> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'workflow'], {
    cwd: repository,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      WORKFLOW_DATABASE_URL: options.databaseUrl,
      WORKFLOW_PORT: String(port),
      WEFT_DATA_DIR: path.join(options.dataDir, name),
      WORKFLOW_JWT_SIGNING_KEY: 'failover-test-signing-key-0123456789abcdef',
      WORKFLOW_BOOTSTRAP_ADMIN_EMAIL: admin.email,
      WORKFLOW_BOOTSTRAP_ADMIN_PASSWORD: admin.password,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const service = { name, child, base: `http://127.0.0.1:${port}`, output: () => output };
  await waitFor(
    `${name} to listen`,
    () => {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${output}`);
      return output.includes('workflow listening');
    },
    60_000,
  ).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  return service;
}

/**
 * Polls `condition` every 50 ms until it holds; throws after `timeoutMs`, with the end of `service`'s
 * output when given.
 */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  service?: Service,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}${service ? `; ${service.name}'s log:\n${logOf(service).slice(-3_000)}` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The service's output without the request lines. */
function logOf(service: Service): string {
  return service
    .output()
    .split('\n')
    .filter((line) => !/"msg":"(incoming request|request completed)"/.test(line))
    .join('\n');
}

/** A sample of the service's /metrics (the first of `name` whose labels include `labels`); null if unanswered. */
export async function metric(service: Service, name: string, labels = ''): Promise<number | null> {
  try {
    const response = await fetch(`${service.base}/metrics`, { signal: AbortSignal.timeout(2_000) });
    const text = await response.text();
    const line = text
      .split('\n')
      .find((l) => (l.startsWith(`${name} `) || l.startsWith(`${name}{`)) && l.includes(labels));
    return line === undefined ? null : Number(line.slice(line.lastIndexOf(' ') + 1));
  } catch {
    return null;
  }
}

/** The service's `weft_timer_leader` gauge (1 while it leads); null if it does not answer. */
export function leaderGauge(service: Service): Promise<number | null> {
  return metric(service, 'weft_timer_leader');
}

/** An API call that must succeed; returns the JSON body. */
export async function call(
  service: Service,
  method: string,
  url: string,
  token: string | null,
  body?: unknown,
): Promise<Record<string, unknown> | null> {
  const response = await fetch(`${service.base}${url}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  assert.ok(response.status < 300, `${method} ${url}: ${response.status} ${text}`);
  return text === '' ? null : (JSON.parse(text) as Record<string, unknown>);
}

/**
 * Logs in as the admin and creates an org and a group through `service`; returns the function that
 * deploys a model there (so due times can be computed right before the deployment).
 */
export async function deployer(service: Service, slug: string): Promise<(xml: string) => Promise<void>> {
  const login = await call(service, 'POST', '/api/v1/auth/login', null, admin);
  const token = String(login?.access_token);
  const org = await call(service, 'POST', '/api/v1/orgs', token, { name: slug, slug });
  const orgId = String(org?.id);
  const group = await call(service, 'POST', `/api/v1/orgs/${orgId}/process-groups`, token, {
    name: 'default',
  });
  return async (xml) => {
    await call(service, 'POST', '/api/v1/deployments', token, {
      org_id: orgId,
      process_group_id: String(group?.id),
      xml,
    });
  };
}

/** A process `key` with one timeDate start event per due time: each must start exactly one instance. */
export function processWithTimerStarts(dueTimes: Date[], key = 'ticks'): string {
  const starts = dueTimes
    .map(
      (due, i) => `<bpmn:startEvent id="t${i}"><bpmn:timerEventDefinition>
        <bpmn:timeDate>${due.toISOString()}</bpmn:timeDate></bpmn:timerEventDefinition></bpmn:startEvent>
        <bpmn:sequenceFlow id="f${i}" sourceRef="t${i}" targetRef="done" />`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="Defs" targetNamespace="urn:weft:test">
  <bpmn:process id="${key}" isExecutable="true">${starts}<bpmn:endEvent id="done" /></bpmn:process>
</bpmn:definitions>`;
}
