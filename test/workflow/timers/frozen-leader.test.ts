import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createMigratedDatabase, type TestDatabase } from '../../helpers/database.js';
import {
  deployer,
  leaderGauge,
  metric,
  processWithTimerStarts,
  startService,
  waitFor,
  type Service,
} from '../../helpers/workflow-processes.js';

// A leader frozen by SIGSTOP keeps its connections (and would have kept an advisory lock): the
// lease it no longer renews is what lets the other instance take over, and the epoch fence is what
// keeps it from firing anything when it wakes.

const leaseMs = 2_000;
const heartbeatMs = Math.floor(leaseMs / 3);

let db: TestDatabase;
let dataDir: string;
const services: Service[] = [];

before(async () => {
  db = await createMigratedDatabase('workflow');
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'weft-frozen-leader-'));
});
after(async () => {
  for (const service of services)
    if (service.child.exitCode === null) {
      service.child.kill('SIGCONT');
      service.child.kill('SIGKILL');
    }
  await rm(dataDir, { recursive: true, force: true });
  await db.drop();
});

async function start(name: string): Promise<Service> {
  const service = await startService(name, {
    databaseUrl: db.url,
    dataDir,
    env: { WORKFLOW_LEADER_LEASE_MS: String(leaseMs) },
  });
  services.push(service);
  return service;
}

async function lease(): Promise<{ holder: string; epoch: number }> {
  const { rows } = await db.pool.query<{ holder: string; epoch: string }>(
    `SELECT holder, epoch FROM leader_lease WHERE name = 'timers'`,
  );
  const row = rows[0];
  assert.ok(row, 'the lease row exists');
  return { holder: row.holder, epoch: Number(row.epoch) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a SIGSTOPped leader is replaced within its lease with no double firing after SIGCONT', async () => {
  const a = await start('a');
  await waitFor('a to lead', async () => (await leaderGauge(a)) === 1, 15_000, a);
  const b = await start('b');
  assert.equal(await leaderGauge(b), 0, 'b serves the API but does not lead');

  const deploy = await deployer(b, 'frozen');
  // 80 timers, one every 200 ms from 2 s from now: a fires the first, b those due while a is
  // frozen, and some are still due after a wakes (work a would take if it still thought it led).
  const firstDue = Date.now() + 2_000;
  const dueTimes = Array.from({ length: 80 }, (_, i) => new Date(firstDue + i * 200));
  await deploy(processWithTimerStarts(dueTimes));

  const started = async () =>
    (
      await db.pool.query<{ start: string; started_at: Date }>(
        `SELECT h.data->>'startEventId' AS start, i.started_at FROM process_instances i
         JOIN process_history h ON h.process_instance_id = i.id AND h.kind = 'instanceStarted'
         WHERE i.process_key = 'ticks'`,
      )
    ).rows;
  await waitFor('a to fire some timers', async () => (await started()).length >= 5, 20_000);
  const leaseOfA = await lease();
  assert.ok(leaseOfA.holder.includes(`/${a.child.pid}/`), `a holds the lease (${leaseOfA.holder})`);

  a.child.kill('SIGSTOP');
  const stoppedAt = new Date();
  await waitFor('b to take over', async () => (await leaderGauge(b)) === 1, 15_000);
  const takeoverMs = Date.now() - stoppedAt.getTime();
  console.log(`takeover ${takeoverMs} ms after SIGSTOP (lease ${leaseMs} ms, heartbeat ${heartbeatMs} ms)`);
  // lease + heartbeat, plus room for a loaded machine (late timers, the metrics poll).
  assert.ok(takeoverMs <= leaseMs + heartbeatMs + 3_000, `b took over ${takeoverMs} ms after SIGSTOP`);
  const leaseOfB = await lease();
  assert.ok(leaseOfB.holder.includes(`/${b.child.pid}/`), `b holds the lease (${leaseOfB.holder})`);
  assert.ok(leaseOfB.epoch > leaseOfA.epoch, 'the takeover raised the epoch');
  await waitFor(
    'b to fire timers while a is frozen',
    async () => (await started()).filter((row) => row.started_at > stoppedAt).length >= 3,
    15_000,
  );
  // Frozen well past its lease, as in the issue (a 20 s pause, shortened with the lease).
  await sleep(Math.max(0, stoppedAt.getTime() + 3 * leaseMs - Date.now()));

  a.child.kill('SIGCONT');
  const continuedAt = new Date();
  await waitFor('a to answer as a follower', async () => (await leaderGauge(a)) === 0, 15_000);
  assert.equal(await leaderGauge(b), 1, 'b still leads');
  await waitFor('every timer to fire', async () => (await started()).length >= dueTimes.length, 30_000);
  await sleep(1_500); // room for a duplicate to show up

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
    rows.some((row) => row.started_at > continuedAt),
    'timers were still due after a woke',
  );
  // a's firing counter counts what a committed; every one of them happened before the freeze.
  const firedByA = await metric(a, 'weft_timer_firings_total', 'outcome="fired"');
  const firedBeforeStop = rows.filter((row) => row.started_at < stoppedAt).length;
  assert.equal(firedByA, firedBeforeStop, 'a fired nothing after it woke');
  assert.equal((await lease()).holder, leaseOfB.holder, 'b kept the lease');
  assert.match(a.output(), /timer leadership lost/);
  const { rows: left } = await db.pool.query('SELECT 1 FROM timer_jobs');
  assert.equal(left.length, 0, 'one-shot timers are deleted once fired');
});
