import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { EngineFixture } from './engine-fixture.js';

/** Body of `POST /api/v1/messages`. */
export interface MessageAnswer {
  started: string[];
  correlated: string[];
  buffered: { id: string; expires_at: string } | null;
}

/** Posts a message as the operator. */
export function postMessage(
  f: EngineFixture,
  body: Record<string, unknown>,
  token = f.tokens.operator,
): Promise<LightMyRequestResponse> {
  return f.workflow.request({
    method: 'POST',
    url: '/api/v1/messages',
    token,
    body: { org_id: f.orgId, ...body },
  });
}

/** Posts a message that must succeed and returns its answer. */
export async function correlate(f: EngineFixture, body: Record<string, unknown>): Promise<MessageAnswer> {
  const response = await postMessage(f, body);
  assert.equal(response.statusCode, 200, response.body);
  return response.json() as MessageAnswer;
}

/** Broadcasts a signal that must succeed and returns its answer. */
export async function signal(
  f: EngineFixture,
  body: Record<string, unknown>,
): Promise<{ started: string[]; delivered: string[] }> {
  const response = await f.workflow.request({
    method: 'POST',
    url: '/api/v1/signals',
    token: f.tokens.operator,
    body: { org_id: f.orgId, ...body },
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json() as { started: string[]; delivered: string[] };
}

/** Element ids of an instance's history entries of one kind. */
export async function historyOf(f: EngineFixture, instanceId: string, kind: string): Promise<string[]> {
  const response = await f.workflow.request({
    method: 'GET',
    url: `/api/v1/process-instances/${instanceId}/history`,
    token: f.tokens.reader,
  });
  assert.equal(response.statusCode, 200, response.body);
  return (response.json() as { kind: string; element_id: string }[])
    .filter((entry) => entry.kind === kind)
    .map((entry) => entry.element_id);
}

/** Completes the one open user task of an instance. */
export async function completeUserTask(f: EngineFixture, instanceId: string): Promise<void> {
  const tasks = (
    await f.workflow.request({
      method: 'GET',
      url: `/api/v1/tasks?org_id=${f.orgId}&process_instance_id=${instanceId}`,
      token: f.tokens.reader,
    })
  ).json() as { id: string }[];
  assert.equal(tasks.length, 1, 'one open user task');
  const done = await f.workflow.request({
    method: 'POST',
    url: `/api/v1/tasks/${tasks[0]?.id}/complete`,
    token: f.tokens.operator,
    body: {},
  });
  assert.equal(done.statusCode, 204, done.body);
}

/** Open subscriptions (message and signal waits) of an instance, as `kind:name`. */
export async function subscriptionsOf(f: EngineFixture, instanceId: string): Promise<string[]> {
  const { rows } = await f.workflow.database.pool.query<{ kind: string; name: string }>(
    'SELECT kind, name FROM event_subscriptions WHERE process_instance_id = $1 ORDER BY kind, name',
    [instanceId],
  );
  return rows.map((row) => `${row.kind}:${row.name}`);
}

/** Number of armed timers of an instance. */
export async function timersOf(f: EngineFixture, instanceId: string): Promise<number> {
  const { rowCount } = await f.workflow.database.pool.query(
    'SELECT 1 FROM timer_jobs WHERE process_instance_id = $1',
    [instanceId],
  );
  return rowCount ?? 0;
}

/** The value of a metric with these labels on `/metrics` (0 when absent). */
export async function metricValue(
  f: EngineFixture,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const text = (await f.workflow.request({ method: 'GET', url: '/metrics' })).body;
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = text
    .split('\n')
    .find(
      (l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && wanted.every((w) => l.includes(w)),
    );
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** The root variables of an instance. */
export async function variablesOf(f: EngineFixture, instanceId: string): Promise<Record<string, unknown>> {
  return (await f.instance(instanceId)).variables as Record<string, unknown>;
}
