import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import type { PoolClient } from '../../../src/platform/database/pool.js';
import { createTimerExecutor } from '../../../src/workflow/timers/timer-executor.js';
import {
  findTimerJob,
  insertTimerJob,
  setTimerJobRetries,
  type TimerJob,
} from '../../../src/workflow/engine/store/timer-jobs.js';
import type { TimerSpec } from '../../../src/workflow/engine/schedule/schedule.js';
import { createMigratedDatabase, type TestDatabase } from '../../helpers/database.js';
import { ManualClock, seedDefinition } from './timer-fixture.js';

let db: TestDatabase;
let orgId: string;
let definitionId: string;
const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));

before(async () => {
  db = await createMigratedDatabase('workflow');
  ({ orgId, definitionId } = await seedDefinition(db.pool));
});
after(() => db.drop());
beforeEach(async () => {
  await db.pool.query('DELETE FROM timer_jobs');
  clock.set('2026-01-01T00:00:00Z');
});

let armed = 0;

// Each timer gets its own element: timer start jobs are unique per (definition, element).
function arm(schedule: TimerSpec, elementId = `timer-${++armed}`, retries?: number): Promise<TimerJob> {
  return insertTimerJob(db.pool, { orgId, definitionId, elementId, schedule, retries }, clock.now()).then(
    (job) => {
      if (!job) throw new Error('not armed');
      return job;
    },
  );
}

interface Firing {
  id: string;
  firedCount: number;
  at: string;
}

function recordingExecutor(options: { fail?: (job: TimerJob) => boolean; batchSize?: number } = {}) {
  const fired: Firing[] = [];
  const errors: { id: string; message: string }[] = [];
  const observed: { fired: number[]; failed: number[] } = { fired: [], failed: [] };
  const executor = createTimerExecutor({
    pool: db.pool,
    clock,
    batchSize: options.batchSize,
    backoff: { baseMs: 1_000, maxMs: 10_000 },
    handle: async (job: TimerJob, client: PoolClient, now: Date) => {
      // A write of the handler: it must commit with the firing, or roll back with a failure.
      await client.query(`UPDATE timer_jobs SET last_error = 'handler wrote' WHERE id = $1`, [job.id]);
      if (options.fail?.(job)) throw new Error(`boom ${job.elementId}`);
      fired.push({ id: job.id, firedCount: job.firedCount, at: now.toISOString() });
    },
    onError: async (job: TimerJob, error: unknown) => {
      await Promise.resolve();
      errors.push({ id: job.id, message: (error as Error).message });
    },
    observer: {
      fired: (job, firedAt) => observed.fired.push(firedAt.getTime() - job.dueAt.getTime()),
      failed: (_job, _error, retriesLeft) => observed.failed.push(retriesLeft),
    },
  });
  return { executor, fired, errors, observed };
}

test('a due timer fires once and is deleted; a timer not yet due does not fire', async () => {
  const soon = await arm({ kind: 'duration', value: 'PT10M' });
  const later = await arm({ kind: 'duration', value: 'PT1H' });
  const { executor, fired, observed } = recordingExecutor();

  assert.deepEqual(await executor.runOnce(), { claimed: 0, fired: 0, failed: 0 });
  clock.advance(10 * 60_000 + 250);
  assert.deepEqual(await executor.runOnce(), { claimed: 1, fired: 1, failed: 0 });
  assert.deepEqual(await executor.runOnce(), { claimed: 0, fired: 0, failed: 0 });
  assert.deepEqual(
    fired.map((f) => f.id),
    [soon.id],
  );
  assert.deepEqual(observed.fired, [250]); // lateness
  assert.equal(await findTimerJob(db.pool, soon.id), null);
  assert.equal((await findTimerJob(db.pool, later.id))?.firedCount, 0);
});

test('a date in the past fires at once', async () => {
  const job = await arm({ kind: 'date', value: '2025-12-31T00:00:00Z' });
  const { executor, fired } = recordingExecutor();
  await executor.runOnce();
  assert.deepEqual(
    fired.map((f) => f.id),
    [job.id],
  );
});

test('a cycle is re-armed for its next occurrence until its repetitions are used up', async () => {
  const job = await arm({ kind: 'cycle', value: 'R3/PT10M' });
  const { executor, fired } = recordingExecutor();
  for (let i = 0; i < 5; i++) {
    clock.advance(10 * 60_000);
    await executor.runOnce();
    const row = await findTimerJob(db.pool, job.id);
    if (i < 2) {
      assert.equal(row?.firedCount, i + 1);
      assert.equal(row?.dueAt.toISOString(), new Date(clock.now().getTime() + 10 * 60_000).toISOString());
      assert.equal(row?.lastError, null);
    } else assert.equal(row, null);
  }
  assert.deepEqual(
    fired.map((f) => [f.firedCount, f.at]),
    [
      [0, '2026-01-01T00:10:00.000Z'],
      [1, '2026-01-01T00:20:00.000Z'],
      [2, '2026-01-01T00:30:00.000Z'],
    ],
  );
});

test('occurrences missed while no leader ran are not replayed: one firing, then the next future one', async () => {
  const job = await arm({ kind: 'cycle', value: '*/5 * * * *' });
  const { executor, fired } = recordingExecutor();
  clock.set('2026-01-01T01:02:00Z');
  await executor.runOnce();
  await executor.runOnce();
  assert.equal(fired.length, 1);
  assert.equal((await findTimerJob(db.pool, job.id))?.dueAt.toISOString(), '2026-01-01T01:05:00.000Z');
});

test('a failing handler is retried with backoff; at zero retries onError runs and the timer parks', async () => {
  const job = await arm({ kind: 'duration', value: 'PT1M' }, 'bad', 3);
  const { executor, fired, errors, observed } = recordingExecutor({ fail: (j) => j.elementId === 'bad' });
  clock.set('2026-01-01T00:01:00Z');

  await executor.runOnce();
  let row = await findTimerJob(db.pool, job.id);
  assert.equal(row?.retries, 2);
  assert.equal(row?.lastError, 'boom bad'); // the handler's own write was rolled back
  assert.equal(row?.dueAt.toISOString(), '2026-01-01T00:01:01.000Z'); // base 1 s

  await executor.runOnce(); // not due yet
  assert.equal((await findTimerJob(db.pool, job.id))?.retries, 2);

  clock.set('2026-01-01T00:01:01Z');
  await executor.runOnce();
  row = await findTimerJob(db.pool, job.id);
  assert.equal(row?.retries, 1);
  assert.equal(row?.dueAt.toISOString(), '2026-01-01T00:01:03.000Z'); // 2 s

  clock.set('2026-01-01T00:01:03Z');
  await executor.runOnce();
  row = await findTimerJob(db.pool, job.id);
  assert.equal(row?.retries, 0);
  assert.equal(row?.attempts, 3);
  assert.deepEqual(errors, [{ id: job.id, message: 'boom bad' }]);
  assert.deepEqual(observed.failed, [2, 1, 0]);

  clock.advance(3_600_000);
  assert.equal((await executor.runOnce()).claimed, 0); // parked
  assert.equal(fired.length, 0);

  // The incident is resolved: retries again, due at once.
  assert.ok(await setTimerJobRetries(db.pool, job.id, 1));
  const healthy = recordingExecutor();
  await healthy.executor.runOnce();
  assert.equal(healthy.fired.length, 1);
  assert.equal(await findTimerJob(db.pool, job.id), null);
});

test('a failure does not disturb the other timers of the batch', async () => {
  const good = await arm({ kind: 'duration', value: 'PT1M' }, 'good');
  const bad = await arm({ kind: 'duration', value: 'PT1M' }, 'bad');
  const { executor, fired } = recordingExecutor({ fail: (j) => j.elementId === 'bad' });
  clock.advance(60_000);
  assert.deepEqual(await executor.runOnce(), { claimed: 2, fired: 1, failed: 1 });
  assert.deepEqual(
    fired.map((f) => f.id),
    [good.id],
  );
  assert.equal(await findTimerJob(db.pool, good.id), null);
  assert.equal((await findTimerJob(db.pool, bad.id))?.retries, 2);
});

test('a cycle restores its retries after a successful firing', async () => {
  const job = await arm({ kind: 'cycle', value: 'R/PT1M' }, 'flaky', 3);
  let failures = 1;
  const { executor } = recordingExecutor({ fail: () => failures-- > 0 });
  clock.advance(60_000);
  await executor.runOnce();
  assert.equal((await findTimerJob(db.pool, job.id))?.retries, 2);
  clock.advance(1_000);
  await executor.runOnce();
  const row = await findTimerJob(db.pool, job.id);
  assert.equal(row?.retries, 3);
  assert.equal(row?.attempts, 0);
  assert.equal(row?.firedCount, 1);
});

test('when onError itself fails, the timer keeps one retry and comes back after the backoff', async () => {
  const job = await arm({ kind: 'duration', value: 'PT1M' }, 'bad', 1);
  const executor = createTimerExecutor({
    pool: db.pool,
    clock,
    backoff: { baseMs: 1_000, maxMs: 10_000 },
    handle: () => Promise.reject(new Error('boom')),
    onError: () => Promise.reject(new Error('no incident today')),
  });
  clock.advance(60_000);
  await executor.runOnce();
  const row = await findTimerJob(db.pool, job.id);
  assert.equal(row?.retries, 1);
  assert.match(row?.lastError ?? '', /boom; then onError failed: no incident today/);
  assert.ok((row?.dueAt.getTime() ?? 0) > clock.now().getTime());
});

test('two executors running at once never fire the same timer', async () => {
  const jobs: TimerJob[] = [];
  for (let i = 0; i < 60; i++) jobs.push(await arm({ kind: 'duration', value: 'PT1M' }, `t${i}`));
  clock.advance(60_000);
  const firings: string[] = [];
  const make = () =>
    createTimerExecutor({
      pool: db.pool,
      clock,
      batchSize: 7,
      handle: async (job, client) => {
        await client.query('SELECT pg_sleep(0.002)');
        firings.push(job.id);
      },
      onError: () => Promise.resolve(),
    });
  const a = make();
  const b = make();
  const drain = async (executor: ReturnType<typeof make>): Promise<number> => {
    let total = 0;
    for (;;) {
      const { claimed } = await executor.runOnce();
      if (claimed === 0) return total;
      total += claimed;
    }
  };
  const [byA, byB] = await Promise.all([drain(a), drain(b)]);
  assert.equal(firings.length, 60);
  assert.equal(new Set(firings).size, 60);
  assert.ok(byA > 0 && byB > 0, `both executors worked (${byA}, ${byB})`);
  assert.equal((await db.pool.query('SELECT 1 FROM timer_jobs')).rowCount, 0);
});

test('start() polls until stop(); nothing fires after stop()', async () => {
  const { executor, fired } = recordingExecutor();
  executor.start();
  assert.throws(() => executor.start(), /already running/);
  await arm({ kind: 'date', value: '2025-12-31T00:00:00Z' });
  executor.nudge();
  for (let i = 0; i < 100 && fired.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(fired.length, 1);
  await executor.stop();
  assert.equal(executor.running, false);
  await arm({ kind: 'date', value: '2025-12-31T00:00:00Z' });
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(fired.length, 1);
});

test('arming refuses an invalid schedule and skips a cycle that is over', async () => {
  await assert.rejects(
    insertTimerJob(
      db.pool,
      { orgId, definitionId, elementId: 'x', schedule: { kind: 'cycle', value: 'R/PT0S' } },
      clock.now(),
    ),
    /invalid timeCycle 'R\/PT0S'/,
  );
  const over = await insertTimerJob(
    db.pool,
    {
      orgId,
      definitionId,
      elementId: 'x',
      schedule: { kind: 'cycle', value: 'R2/2020-01-01T00:00:00Z/P1D' },
    },
    clock.now(),
  );
  assert.equal(over, null);
});
