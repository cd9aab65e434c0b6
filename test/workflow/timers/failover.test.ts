import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createMigratedDatabase, type TestDatabase } from '../../helpers/database.js';
import {
  deployer,
  leaderGauge,
  processWithTimerStarts,
  startService,
  waitFor,
  type Service,
} from '../../helpers/workflow-processes.js';

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

async function start(name: string): Promise<Service> {
  const service = await startService(name, { databaseUrl: db.url, dataDir });
  services.push(service);
  return service;
}

test('two service processes on one database: SIGKILL the leader, the other fires the next due timers; none fired twice or lost', async () => {
  const a = await start('a');
  await waitFor('a to lead', async () => (await leaderGauge(a)) === 1, 10_000, a);
  const b = await start('b');
  assert.equal(await leaderGauge(b), 0, 'b serves the API but does not lead');

  const deploy = await deployer(b, 'failover');
  // 30 timers, one every 200 ms from 2 s from now: some fire before the kill, the rest after.
  const firstDue = Date.now() + 2_000;
  const dueTimes = Array.from({ length: 30 }, (_, i) => new Date(firstDue + i * 200));
  await deploy(processWithTimerStarts(dueTimes));

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
