import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createMigratedDatabase, type TestDatabase } from '../../helpers/database.js';
import { freePort } from '../../helpers/ports.js';

const repository = fileURLToPath(new URL('../../../', import.meta.url));
const admin = { email: 'admin@example.com', password: 'failover admin password' };

interface Service {
  name: string;
  child: ChildProcess;
  base: string;
  output: () => string;
}

let db: TestDatabase;
let dataDir: string;
const services: Service[] = [];

before(async () => {
  db = await createMigratedDatabase('workflow');
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'weft-failover-'));
});
after(async () => {
  for (const service of services) if (service.child.exitCode === null) service.child.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
  await db.drop();
});

/** Starts `weft workflow` from the sources as its own process on the test database. */
async function startService(name: string): Promise<Service> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'workflow'], {
    cwd: repository,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      WORKFLOW_DATABASE_URL: db.url,
      WORKFLOW_PORT: String(port),
      WEFT_DATA_DIR: path.join(dataDir, name),
      WORKFLOW_JWT_SIGNING_KEY: 'failover-test-signing-key-0123456789abcdef',
      WORKFLOW_BOOTSTRAP_ADMIN_EMAIL: admin.email,
      WORKFLOW_BOOTSTRAP_ADMIN_PASSWORD: admin.password,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const service = { name, child, base: `http://127.0.0.1:${port}`, output: () => output };
  services.push(service);
  await waitFor(
    `${name} to listen`,
    () => {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${output}`);
      return output.includes('workflow listening');
    },
    60_000,
  );
  return service;
}

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function leaderGauge(service: Service): Promise<number | null> {
  try {
    const text = await (await fetch(`${service.base}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('weft_timer_leader'));
    return line === undefined ? null : Number(line.slice(line.lastIndexOf(' ') + 1));
  } catch {
    return null;
  }
}

async function call(service: Service, method: string, url: string, token: string | null, body?: unknown) {
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

/** A process with one timeDate start event per due time: each must start exactly one instance. */
function processWithTimerStarts(dueTimes: Date[]): string {
  const starts = dueTimes
    .map(
      (due, i) => `<bpmn:startEvent id="t${i}"><bpmn:timerEventDefinition>
        <bpmn:timeDate>${due.toISOString()}</bpmn:timeDate></bpmn:timerEventDefinition></bpmn:startEvent>
        <bpmn:sequenceFlow id="f${i}" sourceRef="t${i}" targetRef="done" />`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="Defs" targetNamespace="urn:weft:test">
  <bpmn:process id="ticks" isExecutable="true">${starts}<bpmn:endEvent id="done" /></bpmn:process>
</bpmn:definitions>`;
}

test('two service processes on one database: SIGKILL the leader, the other fires the next due timers; none fired twice or lost', async () => {
  const a = await startService('a');
  await waitFor('a to lead', async () => (await leaderGauge(a)) === 1, 10_000);
  const b = await startService('b');
  assert.equal(await leaderGauge(b), 0, 'b serves the API but does not lead');

  const login = await call(b, 'POST', '/api/v1/auth/login', null, admin);
  const token = String(login?.access_token);
  const org = await call(b, 'POST', '/api/v1/orgs', token, { name: 'Failover', slug: 'failover' });
  const orgId = String(org?.id);
  const group = await call(b, 'POST', `/api/v1/orgs/${orgId}/process-groups`, token, { name: 'default' });
  // 30 timers, one every 200 ms from 2 s from now: some fire before the kill, the rest after.
  const firstDue = Date.now() + 2_000;
  const dueTimes = Array.from({ length: 30 }, (_, i) => new Date(firstDue + i * 200));
  await call(b, 'POST', '/api/v1/deployments', token, {
    org_id: orgId,
    process_group_id: String(group?.id),
    xml: processWithTimerStarts(dueTimes),
  });

  const started = async () =>
    (
      await db.pool.query<{ start: string; started_at: Date }>(
        `SELECT h.data->>'startEventId' AS start, i.started_at FROM process_instances i
         JOIN process_history h ON h.process_instance_id = i.id AND h.kind = 'instanceStarted'
         WHERE i.process_key = 'ticks'`,
      )
    ).rows;
  await waitFor('a to fire some timers', async () => (await started()).length >= 5, 15_000);
  a.child.kill('SIGKILL');
  const killedAt = new Date();
  await new Promise((resolve) => a.child.once('exit', resolve));

  await waitFor('b to take over', async () => (await leaderGauge(b)) === 1, 10_000);
  await waitFor('every timer to fire', async () => (await started()).length >= dueTimes.length, 20_000);
  await new Promise((resolve) => setTimeout(resolve, 1_500)); // room for a duplicate to show up

  const rows = await started();
  const perStart = new Map<string, number>();
  for (const row of rows) perStart.set(row.start, (perStart.get(row.start) ?? 0) + 1);
  assert.equal(rows.length, dueTimes.length, 'one instance per timer: none fired twice');
  assert.deepEqual(
    [...perStart.keys()].sort(),
    dueTimes.map((_, i) => `t${i}`).sort(),
    'every timer fired: none was lost',
  );
  assert.ok(
    rows.some((row) => row.started_at < killedAt),
    'a fired timers before it was killed',
  );
  assert.ok(
    rows.some((row) => row.started_at > killedAt),
    'b fired the timers due after the kill',
  );
  const { rows: left } = await db.pool.query('SELECT 1 FROM timer_jobs');
  assert.equal(left.length, 0, 'one-shot timers are deleted once fired');
});
