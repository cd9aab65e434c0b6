import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { LeaderElection, type LostReason } from '../../../src/platform/jobs/leader-election.js';
import { runWhileLeader } from '../../../src/platform/jobs/leader-duties.js';
import { createMigratedDatabase, type TestDatabase } from '../../helpers/database.js';

let db: TestDatabase;
before(async () => (db = await createMigratedDatabase('workflow')));
after(() => db.drop());

async function waitFor(what: string, condition: () => boolean, timeoutMs = 5_000): Promise<number> {
  const startedAt = Date.now();
  while (!condition()) {
    if (Date.now() - startedAt > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - startedAt;
}

function election(name: string, leaseName: string, stepBackAfterLossMs?: number) {
  const events: string[] = [];
  const e = new LeaderElection({
    connectionString: db.url,
    leaseName,
    retryIntervalMs: 100,
    stepBackAfterLossMs,
    applicationName: name,
  });
  e.on('elected', () => events.push('elected'));
  e.on('lost', (reason: LostReason) => events.push(`lost:${reason}`));
  return { e, events };
}

test('of two elections on one database exactly one leads; the other takes over after pg_terminate_backend, before the lease expires', async (t) => {
  const key = 'lease-42';
  // a steps back 2 s after losing: long enough for b to win on a loaded machine, so b's takeover
  // is not a race against a's reconnection.
  const a = election('weft-test-leader-a', key, 2_000);
  const b = election('weft-test-leader-b', key);
  // A failed assertion must not leave elections retrying (and the test process running) forever.
  t.after(() => Promise.all([a.e.stop(), b.e.stop()]));
  const duty = { started: 0, stopped: 0 };
  const detach = runWhileLeader(a.e, [
    {
      start: () => void duty.started++,
      stop: () => {
        duty.stopped++;
        return Promise.resolve();
      },
    },
  ]);
  a.e.start();
  await waitFor('a to lead', () => a.e.isLeader);
  b.e.start();
  await new Promise((resolve) => setTimeout(resolve, 400)); // several attempts of b
  assert.equal(b.e.isLeader, false);
  assert.deepEqual(a.events, ['elected']);
  assert.deepEqual(b.events, []);
  assert.equal(duty.started, 1);

  const pid = a.e.backendPid;
  assert.ok(pid);
  await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
  const lostAfter = await waitFor('a to lose', () => !a.e.isLeader, 1_000);
  assert.ok(lostAfter < 500, `a noticed in ${lostAfter} ms`);
  assert.equal(a.events[1], 'lost:connection');
  assert.equal(duty.stopped, 1);
  // Retries every 100 ms; the bound is generous because a loaded CI machine is slow to reconnect.
  await waitFor('b to take over', () => b.e.isLeader, 10_000);
  assert.deepEqual(b.events, ['elected']);

  // a reconnects after its step-back and waits as a follower; exactly one leads.
  await new Promise((resolve) => setTimeout(resolve, 2_400));
  assert.equal(a.e.isLeader, false);

  await b.e.stop();
  assert.deepEqual(b.events, ['elected', 'lost:stopped']);
  await waitFor('a to lead again', () => a.e.isLeader, 3_000);
  assert.equal(duty.started, 2);
  await detach();
  await a.e.stop();
  assert.equal(duty.stopped, 2); // once on the loss, once by detach()
});

test('an election that cannot reach the database keeps trying and leads once it can', async () => {
  const url = new URL(db.url);
  const e = new LeaderElection({
    connectionString: `${url.protocol}//${url.username}:${url.password}@127.0.0.1:1${url.pathname}`,
    retryIntervalMs: 50,
  });
  e.start();
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(e.isLeader, false);
  await e.stop();

  const ok = election('weft-test-leader-c', 'lease-43');
  ok.e.start();
  await waitFor('c to lead', () => ok.e.isLeader);
  await ok.e.stop();
  const { rows } = await db.pool.query(
    `SELECT 1 FROM leader_lease WHERE name = 'lease-43' AND expires_at <= clock_timestamp()`,
  );
  assert.equal(rows.length, 1); // released on stop
});
