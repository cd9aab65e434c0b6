import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { systemClock, type Clock } from '../../../src/platform/clock.js';
import { createTimerExecutor } from '../../../src/workflow/timers/timer-executor.js';
import { timerExecutorSizing } from '../../../src/workflow/timers/timer-executor-sizing.js';
import {
  insertTimerJob,
  nextTimerDue,
  type TimerJob,
} from '../../../src/workflow/engine/store/timer-jobs.js';
import type { TimerSpec } from '../../../src/workflow/engine/schedule/schedule.js';
import { createMigratedDatabase, type TestDatabase } from '../../helpers/database.js';
import { ManualClock, seedDefinition } from './timer-fixture.js';

// The claim loops of start(): several side by side, and an idle loop waking at the next due time.

let db: TestDatabase;
let orgId: string;
let definitionId: string;
let armed = 0;

before(async () => {
  db = await createMigratedDatabase('workflow');
  ({ orgId, definitionId } = await seedDefinition(db.pool));
});
after(() => db.drop());
beforeEach(async () => {
  await db.pool.query('DELETE FROM timer_jobs');
});

function arm(schedule: TimerSpec, clock: Clock): Promise<TimerJob> {
  const elementId = `timer-${++armed}`;
  return insertTimerJob(db.pool, { orgId, definitionId, elementId, schedule }, clock.now()).then((job) => {
    if (!job) throw new Error('not armed');
    return job;
  });
}

async function waitFor(what: string, condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('several claim loops fire every due timer exactly once, side by side', async () => {
  const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
  for (let i = 0; i < 120; i++) await arm({ kind: 'duration', value: 'PT1M' }, clock);
  clock.advance(60_000);
  const firings: string[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const executor = createTimerExecutor({
    pool: db.pool,
    clock,
    batchSize: 5,
    concurrency: 3,
    pollIntervalMs: 60_000,
    handle: async (job, client) => {
      // One loop handles its batch's jobs one after another: overlapping handlers are other loops.
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await client.query('SELECT pg_sleep(0.005)');
      inFlight--;
      firings.push(job.id);
    },
    onError: () => Promise.resolve(),
  });
  executor.start();
  try {
    // A poll interval of a minute: the loops get through all 24 batches only by going on at once
    // after each full one.
    await waitFor('120 firings', () => firings.length >= 120, 20_000);
  } finally {
    await executor.stop();
  }
  assert.equal(firings.length, 120);
  assert.equal(new Set(firings).size, 120);
  assert.ok(mostInFlight > 1, `loops fired side by side (at most ${mostInFlight} at once)`);
  assert.equal((await db.pool.query('SELECT 1 FROM timer_jobs')).rowCount, 0);
});

test('an idle loop wakes at the next due time, not after its poll interval', async () => {
  const fired: { id: string; latenessMs: number }[] = [];
  const executor = createTimerExecutor({
    pool: db.pool,
    clock: systemClock,
    pollIntervalMs: 60_000,
    handle: (job, _client, now) => {
      fired.push({ id: job.id, latenessMs: now.getTime() - job.dueAt.getTime() });
      return Promise.resolve();
    },
    onError: () => Promise.resolve(),
  });
  // Armed before the loop starts, so its first (empty) claim sees it as the next due time.
  const job = await arm({ kind: 'date', value: new Date(Date.now() + 400).toISOString() }, systemClock);
  executor.start();
  try {
    await waitFor('the timer to fire', () => fired.length === 1, 10_000);
  } finally {
    await executor.stop();
  }
  assert.equal(fired[0]?.id, job.id);
  assert.ok((fired[0]?.latenessMs ?? -1) >= 0, 'not before its due time');
});

test('a timer falling due while an idle claim runs fires at once, not after the poll interval', async () => {
  const start = new Date('2026-01-01T00:00:00Z');
  // The claim sees the first instant; every later reading is two seconds on, as if the claim's
  // transaction had been slow and the timer fell due meanwhile.
  let readings = 0;
  const clock: Clock = { now: () => new Date(start.getTime() + (readings++ === 0 ? 0 : 2_000)) };
  const job = await arm({ kind: 'date', value: new Date(start.getTime() + 1_000).toISOString() }, clock);
  readings = 0;
  const fired: string[] = [];
  const executor = createTimerExecutor({
    pool: db.pool,
    clock,
    pollIntervalMs: 60_000,
    handle: (claimed) => {
      fired.push(claimed.id);
      return Promise.resolve();
    },
    onError: () => Promise.resolve(),
  });
  executor.start();
  try {
    await waitFor('the timer to fire', () => fired.length === 1, 5_000);
  } finally {
    await executor.stop();
  }
  assert.deepEqual(fired, [job.id]);
});

test('stop() ends every loop: nothing fires afterwards', async () => {
  const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
  const fired: string[] = [];
  const executor = createTimerExecutor({
    pool: db.pool,
    clock,
    concurrency: 3,
    handle: (job) => {
      fired.push(job.id);
      return Promise.resolve();
    },
    onError: () => Promise.resolve(),
  });
  executor.start();
  await executor.stop();
  assert.equal(executor.running, false);
  await arm({ kind: 'date', value: '2025-12-31T00:00:00Z' }, clock);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual(fired, []);
});

test('savepoints after failure: a failing job rolls its batch back, which runs again with savepoints', async () => {
  const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
  // Due one after the other, so the claim (earliest first) handles the good one before the bad one.
  const good = await arm({ kind: 'duration', value: 'PT1M' }, clock);
  const bad = await arm({ kind: 'duration', value: 'PT2M' }, clock);
  clock.advance(120_000);
  const handled: string[] = [];
  const observed: string[] = [];
  const executor = createTimerExecutor({
    pool: db.pool,
    clock,
    savepoints: 'after-failure',
    handle: async (job, client) => {
      handled.push(job.id);
      await client.query(`UPDATE timer_jobs SET last_error = 'handler wrote' WHERE id = $1`, [job.id]);
      if (job.id === bad.id) throw new Error('boom');
    },
    onError: () => Promise.resolve(),
    observer: { fired: (job) => observed.push(job.id) },
  });
  assert.deepEqual(await executor.runOnce(), { claimed: 2, fired: 1, failed: 1 });
  const { rows } = await db.pool.query<{ id: string; retries: number; last_error: string }>(
    'SELECT id, retries, last_error FROM timer_jobs',
  );
  assert.deepEqual(rows, [{ id: bad.id, retries: 2, last_error: 'boom' }]); // the handler's write undone
  assert.deepEqual(observed, [good.id]); // told once, after the commit
  // The rolled-back run handled the good job once before the failure; the second run again.
  assert.equal(handled.filter((id) => id === good.id).length, 2);
});

test('savepoints after failure: a batch that succeeds deletes its one-shot timers and re-arms its cycles', async () => {
  const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
  const once = await arm({ kind: 'duration', value: 'PT1M' }, clock);
  const other = await arm({ kind: 'date', value: '2026-01-01T00:00:30Z' }, clock);
  const cycle = await arm({ kind: 'cycle', value: 'R3/PT1M' }, clock);
  clock.advance(60_000);
  const executor = createTimerExecutor({
    pool: db.pool,
    clock,
    savepoints: 'after-failure',
    handle: () => Promise.resolve(),
    onError: () => Promise.resolve(),
  });
  assert.deepEqual(await executor.runOnce(), { claimed: 3, fired: 3, failed: 0 });
  const { rows } = await db.pool.query<{ id: string; fired_count: number; due_at: Date }>(
    'SELECT id, fired_count, due_at FROM timer_jobs',
  );
  assert.deepEqual(rows, [{ id: cycle.id, fired_count: 1, due_at: new Date('2026-01-01T00:02:00Z') }]);
  assert.ok(![once.id, other.id].some((id) => rows.some((row) => row.id === id)));
});

test('handleAll fires a batch at once; when it throws, the batch runs again job by job with savepoints', async () => {
  const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
  const good = await arm({ kind: 'duration', value: 'PT1M' }, clock);
  const bad = await arm({ kind: 'duration', value: 'PT1M' }, clock);
  clock.advance(60_000);
  const batches: string[][] = [];
  const oneByOne: string[] = [];
  const executor = createTimerExecutor({
    pool: db.pool,
    clock,
    savepoints: 'after-failure',
    handleAll: async (jobs, client) => {
      batches.push(jobs.map((job) => job.id).sort());
      await client.query(`UPDATE timer_jobs SET last_error = 'batch wrote' WHERE id = ANY($1::uuid[])`, [
        jobs.map((job) => job.id),
      ]);
      throw new Error('one of them is bad');
    },
    handle: (job) => {
      oneByOne.push(job.id);
      return job.id === bad.id ? Promise.reject(new Error('boom')) : Promise.resolve();
    },
    onError: () => Promise.resolve(),
  });
  assert.deepEqual(await executor.runOnce(), { claimed: 2, fired: 1, failed: 1 });
  assert.deepEqual(batches, [[good.id, bad.id].sort()]);
  assert.deepEqual(oneByOne.sort(), [good.id, bad.id].sort());
  const { rows } = await db.pool.query<{ id: string; last_error: string }>(
    'SELECT id, last_error FROM timer_jobs',
  );
  assert.deepEqual(rows, [{ id: bad.id, last_error: 'boom' }]); // the batch's write undone

  const fine = await arm({ kind: 'duration', value: 'PT1M' }, clock);
  clock.advance(60_000);
  const together: string[][] = [];
  const handledAlone: string[] = [];
  const batchOnly = createTimerExecutor({
    pool: db.pool,
    clock,
    savepoints: 'after-failure',
    handleAll: (jobs) => {
      together.push(jobs.map((job) => job.id));
      return Promise.resolve();
    },
    handle: (job) => {
      handledAlone.push(job.id);
      return Promise.resolve();
    },
    onError: () => Promise.resolve(),
  });
  await db.pool.query('UPDATE timer_jobs SET retries = 0 WHERE id = $1', [bad.id]);
  assert.deepEqual(await batchOnly.runOnce(), { claimed: 1, fired: 1, failed: 0 });
  assert.deepEqual(together, [[fine.id]]);
  assert.deepEqual(handledAlone, []);
  assert.equal((await db.pool.query('SELECT 1 FROM timer_jobs WHERE id = $1', [fine.id])).rowCount, 0);
});

test('nextTimerDue: the earliest future due time of a timer with retries left', async () => {
  const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
  assert.equal(await nextTimerDue(db.pool, clock.now()), null);
  await arm({ kind: 'date', value: '2025-12-31T00:00:00Z' }, clock); // past: the claim's, not a wake-up
  const parked = await arm({ kind: 'date', value: '2026-01-01T00:00:30Z' }, clock);
  await db.pool.query('UPDATE timer_jobs SET retries = 0 WHERE id = $1', [parked.id]); // an incident
  await arm({ kind: 'date', value: '2026-01-01T00:02:00Z' }, clock);
  await arm({ kind: 'date', value: '2026-01-01T00:01:00Z' }, clock);
  assert.equal((await nextTimerDue(db.pool, clock.now()))?.toISOString(), '2026-01-01T00:01:00.000Z');
});

test('the service sizes its executor from its pool: at most half the connections, 1 to 4 loops', () => {
  const sized = (poolSize: number) => timerExecutorSizing(poolSize).concurrency;
  assert.deepEqual([1, 2, 3, 8, 10, 100].map(sized), [1, 1, 1, 4, 4, 4]);
  assert.equal(timerExecutorSizing(10).batchSize, 100);
});
