import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { systemClock } from '../../../src/platform/clock.js';
import { LeaderElection, type LostReason } from '../../../src/platform/jobs/leader-election.js';
import {
  inFencedTransaction,
  isLeaderLeaseLost,
  leaseFence,
} from '../../../src/platform/jobs/leader-fence.js';
import {
  acquireLeaderLease,
  ensureLeaderLease,
  renewLeaderLease,
  type LeaseToken,
} from '../../../src/platform/jobs/leader-lease-repository.js';
import { createTimerExecutor } from '../../../src/workflow/timers/timer-executor.js';
import { findTimerJob, insertTimerJob } from '../../../src/workflow/engine/store/timer-jobs.js';
import { createMigratedDatabase, type TestDatabase } from '../../helpers/database.js';
import { seedDefinition } from './timer-fixture.js';

// The lease the database enforces (leader_lease) and the fence on the leader's writes.

let db: TestDatabase;
const clients: pg.Client[] = [];

before(async () => {
  db = await createMigratedDatabase('workflow');
  await db.pool.query('CREATE TABLE fence_probe (n int)');
});
after(async () => {
  for (const client of clients) await client.end().catch(() => undefined);
  await db.drop();
});

/** A connection of its own, as an election has: the lease records its backend as the holder's. */
async function connection(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  clients.push(client);
  return client;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Ends the lease now, as if its holder had been frozen past its expiry. */
async function expire(name: string): Promise<void> {
  await db.pool.query(`UPDATE leader_lease SET expires_at = clock_timestamp() WHERE name = $1`, [name]);
}

async function probeRows(): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM fence_probe');
  return Number(rows[0]?.n);
}

test('one holder at a time: renewals keep the lease, an expired one goes to the next holder at a higher epoch', async () => {
  const [a, b] = [await connection(), await connection()];
  await ensureLeaderLease(a, 'one');
  await ensureLeaderLease(b, 'one');
  const first = await acquireLeaderLease(a, 'one', 'holder-a', 400);
  assert.equal(first?.epoch, 1);
  assert.equal(await acquireLeaderLease(b, 'one', 'holder-b', 400), undefined, 'a holds it');
  await sleep(200);
  assert.equal(await renewLeaderLease(a, first, 400), true);
  await sleep(250); // past the first expiry, within the renewed one
  assert.equal(await acquireLeaderLease(b, 'one', 'holder-b', 400), undefined, 'the renewal kept it');
  await sleep(500);
  const second = await acquireLeaderLease(b, 'one', 'holder-b', 400);
  assert.equal(second?.epoch, 2, 'taken over after expiry, one epoch up');
  assert.equal(await renewLeaderLease(a, first, 400), false, 'the old holder cannot renew');
});

test('a holder whose election connection is gone is replaced before its lease expires', async () => {
  const [a, b] = [await connection(), await connection()];
  await ensureLeaderLease(a, 'crash');
  const first = await acquireLeaderLease(a, 'crash', 'holder-a', 60_000);
  assert.equal(first?.epoch, 1);
  assert.equal(await acquireLeaderLease(b, 'crash', 'holder-b', 60_000), undefined);
  await a.end();
  let taken: LeaseToken | undefined;
  for (let i = 0; i < 50 && !taken; i++) {
    taken = await acquireLeaderLease(b, 'crash', 'holder-b', 60_000);
    if (!taken) await sleep(50);
  }
  assert.equal(taken?.epoch, 2, 'taken over while the 60 s lease still ran');
});

test('a fenced write with a stale epoch affects nothing, whether the lease went before BEGIN or before COMMIT', async () => {
  const [a, b, c] = [await connection(), await connection(), await connection()];
  await ensureLeaderLease(a, 'fence');
  const tokenA = await acquireLeaderLease(a, 'fence', 'holder-a', 60_000);
  assert.ok(tokenA);
  const insert = (client: pg.ClientBase) => client.query('INSERT INTO fence_probe VALUES (1)');

  await inFencedTransaction(
    db.pool,
    leaseFence(() => tokenA, 60_000),
    insert,
  );
  assert.equal(await probeRows(), 1, 'the holder writes');

  await expire('fence');
  const tokenB = await acquireLeaderLease(b, 'fence', 'holder-b', 60_000);
  assert.equal(tokenB?.epoch, 2);
  await assert.rejects(
    inFencedTransaction(
      db.pool,
      leaseFence(() => tokenA, 60_000),
      insert,
    ),
    (error) => isLeaderLeaseLost(error),
  );
  assert.equal(await probeRows(), 1, 'epoch 1 wrote nothing after the takeover');

  // B opens its transaction while it holds the lease and loses it (C takes over) before COMMIT.
  await assert.rejects(
    inFencedTransaction(
      db.pool,
      leaseFence(() => tokenB, 60_000),
      async (client) => {
        await insert(client);
        await expire('fence');
        assert.equal((await acquireLeaderLease(c, 'fence', 'holder-c', 60_000))?.epoch, 3);
      },
    ),
    (error) => isLeaderLeaseLost(error),
  );
  assert.equal(await probeRows(), 1, 'the write made before the takeover was rolled back at COMMIT');

  // Not leading at all: refused before touching the database.
  await assert.rejects(
    inFencedTransaction(
      db.pool,
      leaseFence(() => undefined, 60_000),
      insert,
    ),
    (error) => isLeaderLeaseLost(error),
  );
  assert.equal(await probeRows(), 1);
});

test("the timer executor's loops fire nothing under a stale epoch, and fire once the lease is theirs", async () => {
  const { orgId, definitionId } = await seedDefinition(db.pool);
  const [a, b] = [await connection(), await connection()];
  await ensureLeaderLease(a, 'executor');
  const stale = await acquireLeaderLease(a, 'executor', 'holder-a', 60_000);
  await expire('executor');
  const current = await acquireLeaderLease(b, 'executor', 'holder-b', 60_000);
  assert.ok(stale && current);
  const job = await insertTimerJob(
    db.pool,
    { orgId, definitionId, elementId: 'fenced', schedule: { kind: 'duration', value: 'PT0S' } },
    systemClock.now(),
  );
  assert.ok(job);
  const fired: string[] = [];
  const executorUnder = (token: LeaseToken) =>
    createTimerExecutor({
      pool: db.pool,
      clock: systemClock,
      pollIntervalMs: 50,
      fence: leaseFence(() => token, 60_000),
      handle: (timer) => {
        fired.push(timer.id);
        return Promise.resolve();
      },
      onError: () => Promise.resolve(),
    });

  const staleExecutor = executorUnder(stale);
  staleExecutor.start();
  await sleep(400);
  await staleExecutor.stop();
  assert.deepEqual(fired, [], 'the stale leader handled nothing');
  assert.ok(await findTimerJob(db.pool, job.id), 'the timer is still armed');

  const leaderExecutor = executorUnder(current);
  leaderExecutor.start();
  await waitFor('the leader to fire', () => fired.length > 0, 5_000);
  await leaderExecutor.stop();
  assert.deepEqual(fired, [job.id]);
  assert.equal(await findTimerJob(db.pool, job.id), null, 'fired once and deleted');
});

test('an election whose lease was taken over emits lost:lease at its next heartbeat and stops fencing with it', async (t) => {
  const events: string[] = [];
  const a = new LeaderElection({
    connectionString: db.url,
    leaseName: 'election',
    leaseMs: 1_500,
    heartbeatMs: 300,
    stepBackAfterLossMs: 5_000,
    applicationName: 'weft-test-lease-a',
  });
  a.on('elected', () => events.push('elected'));
  a.on('lost', (reason: LostReason) => events.push(`lost:${reason}`));
  const b = new LeaderElection({
    connectionString: db.url,
    leaseName: 'election',
    leaseMs: 1_500,
    heartbeatMs: 300,
    retryIntervalMs: 50,
  });
  t.after(() => Promise.all([a.stop(), b.stop()]));
  a.start();
  await waitFor('a to lead', () => a.isLeader, 5_000);
  const epochA = a.lease?.epoch;
  b.start();
  await sleep(700); // several renewals of a, several attempts of b
  assert.equal(b.isLeader, false, 'the renewals keep the lease with a');
  assert.equal(a.lease?.epoch, epochA, 'renewals keep the epoch');

  await expire('election'); // as if a had been frozen past its lease
  await waitFor('b to take over', () => b.isLeader, 5_000);
  assert.equal(b.lease?.epoch, (epochA ?? 0) + 1);
  await waitFor('a to notice', () => !a.isLeader, 2_000);
  assert.deepEqual(events, ['elected', 'lost:lease']);
  assert.equal(a.lease, undefined);
});
