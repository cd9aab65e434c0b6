import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { setHistoryTimeToLive } from '../../../src/workflow/engine/store/process-definitions.js';
import { Housekeeping } from '../../../src/workflow/timers/housekeeping.js';
import { createMigratedDatabase, type TestDatabase } from '../../helpers/database.js';
import { ManualClock, seedDefinition } from './timer-fixture.js';

let db: TestDatabase;
let orgId: string;
let definitionId: string;
let counter = 0;

before(async () => {
  db = await createMigratedDatabase('workflow');
  ({ orgId, definitionId } = await seedDefinition(db.pool));
});
after(() => db.drop());

async function instance(
  endedAt: string | null,
  historyRows: number,
  definition = definitionId,
): Promise<string> {
  const id = randomUUID();
  await db.pool.query(
    `INSERT INTO process_instances (id, org_id, definition_id, process_key, counter, state, engine_state, started_at, ended_at)
     VALUES ($1, $2, $3, 'p', $4, $5, '{}', '2025-01-01T00:00:00Z', $6)`,
    [id, orgId, definition, ++counter, endedAt ? 'completed' : 'running', endedAt],
  );
  await db.pool.query(
    `INSERT INTO process_history (process_instance_id, kind, element_id, element_type, at)
     SELECT $1, 'entered', 'e' || n, 'task', '2025-01-01T00:00:00Z' FROM generate_series(1, $2) AS n`,
    [id, historyRows],
  );
  return id;
}

// A version of a key of its own with the given history time to live (null: the global retention).
async function version(historyTimeToLive: number | null): Promise<string> {
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO process_definitions
       (org_id, process_group_id, process_key, version, name, xml, content_hash, model, history_time_to_live)
     SELECT org_id, process_group_id, 'ttl-' || $2, 1, 'P', '<xml/>', 'h', '{}', $3
     FROM process_definitions WHERE id = $1
     RETURNING id`,
    [definitionId, randomUUID(), historyTimeToLive],
  );
  const row = rows[0];
  if (!row) throw new Error('seed failed');
  return row.id;
}

async function historyOf(id: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM process_history WHERE process_instance_id = $1',
    [id],
  );
  return rows[0]?.n ?? 0;
}

test('deletes in batches the history of instances ended before the retention period, nothing else', async () => {
  const clock = new ManualClock(new Date('2026-03-01T00:00:00Z'));
  const old = await instance('2026-01-01T00:00:00Z', 25);
  const older = await instance('2025-12-01T00:00:00Z', 3);
  const recent = await instance('2026-02-20T00:00:00Z', 4); // 9 days ago
  const running = await instance(null, 6);
  const housekeeping = new Housekeeping({
    pool: db.pool,
    clock,
    retentionDays: 30,
    batchSize: 10,
    pauseMs: 0,
  });

  const result = await housekeeping.runOnce();
  assert.deepEqual(result, {
    instances: 2,
    historyRows: 28,
    batches: 3,
    expiredMessages: 0,
    finishedBatches: 0,
    deletedInstances: 0,
  });
  assert.equal(await historyOf(old), 0);
  assert.equal(await historyOf(older), 0);
  assert.equal(await historyOf(recent), 4);
  assert.equal(await historyOf(running), 6);
  const { rows } = await db.pool.query('SELECT id FROM process_instances WHERE id = ANY($1)', [[old, older]]);
  assert.equal(rows.length, 2); // the instances themselves stay

  assert.deepEqual(await housekeeping.runOnce(), {
    instances: 0,
    historyRows: 0,
    batches: 0,
    expiredMessages: 0,
    finishedBatches: 0,
    deletedInstances: 0,
  });
  clock.set('2026-03-25T00:00:00Z');
  assert.deepEqual(await housekeeping.runOnce(), {
    instances: 1,
    historyRows: 4,
    batches: 1,
    expiredMessages: 0,
    finishedBatches: 0,
    deletedInstances: 0,
  });
  assert.equal(await historyOf(recent), 0);
});

test('deletes expired buffered messages in batches, with no message being buffered, and keeps live ones', async () => {
  const clock = new ManualClock(new Date('2026-03-01T00:00:00Z'));
  await db.pool.query(
    `INSERT INTO buffered_messages (org_id, message_name, correlation_key, created_at, expires_at)
     SELECT $1, 'paid', 'k' || n, '2026-02-28T00:00:00Z',
            CASE WHEN n <= 23 THEN timestamptz '2026-02-28T12:00:00Z' ELSE timestamptz '2026-03-02T00:00:00Z' END
     FROM generate_series(1, 25) AS n`,
    [orgId],
  );
  const housekeeping = new Housekeeping({
    pool: db.pool,
    clock,
    retentionDays: 30,
    batchSize: 10,
    pauseMs: 0,
  });
  const result = await housekeeping.runOnce();
  assert.equal(result.expiredMessages, 23);
  const left = await db.pool.query<{ correlation_key: string }>(
    'SELECT correlation_key FROM buffered_messages ORDER BY correlation_key',
  );
  assert.deepEqual(
    left.rows.map((row) => row.correlation_key),
    ['k24', 'k25'],
    'messages still within their time to live stay',
  );
  clock.set('2026-03-02T00:00:00Z');
  assert.equal((await housekeeping.runOnce()).expiredMessages, 2, 'a message expires at its expires_at');
  assert.equal((await db.pool.query('SELECT 1 FROM buffered_messages')).rowCount, 0);
});

test("a version's history time to live replaces the global retention, shorter or longer", async () => {
  const clock = new ManualClock(new Date('2026-03-01T00:00:00Z'));
  const oneDay = await version(1);
  const none = await version(null);
  const sixtyDays = await version(60);
  const zero = await version(0);
  const shortEnded = await instance('2026-02-27T00:00:00Z', 3, oneDay); // 2 days ago, time to live 1
  const shortRunning = await instance(null, 2, oneDay);
  const defaultRecent = await instance('2026-02-27T00:00:00Z', 3, none); // 2 days ago, retention 30
  const longNotDue = await instance('2026-01-20T00:00:00Z', 3, sixtyDays); // 40 days ago, time to live 60
  const defaultOld = await instance('2026-01-20T00:00:00Z', 3, none); // 40 days ago, retention 30
  const zeroEnded = await instance('2026-02-28T23:58:59Z', 3, zero); // just over a minute ago, time to live 0
  const zeroJustEnded = await instance('2026-02-28T23:59:30Z', 3, zero); // may not be committed yet
  const housekeeping = new Housekeeping({
    pool: db.pool,
    clock,
    retentionDays: 30,
    batchSize: 10,
    pauseMs: 0,
  });

  await housekeeping.runOnce();
  assert.equal(await historyOf(shortEnded), 0, 'ended longer ago than its version’s time to live');
  assert.equal(await historyOf(shortRunning), 2, 'a running instance keeps its history');
  assert.equal(await historyOf(defaultRecent), 3, 'a version without one keeps the global 30 days');
  assert.equal(await historyOf(longNotDue), 3, 'a time to live longer than the global retention keeps it');
  assert.equal(await historyOf(defaultOld), 0, 'the global retention still purges versions without one');
  assert.equal(await historyOf(zeroEnded), 0, 'a time to live of 0 purges at the next run');
  assert.equal(await historyOf(zeroJustEnded), 3, 'an end of the last minute waits for the next run');

  clock.set('2026-03-21T00:00:00Z'); // 60 days after longNotDue ended: not longer ago yet
  await housekeeping.runOnce();
  assert.equal(await historyOf(longNotDue), 3);
  clock.set('2026-03-21T00:00:01Z');
  await housekeeping.runOnce();
  assert.equal(await historyOf(longNotDue), 0);
  assert.equal(await historyOf(zeroJustEnded), 0, 'and the cursor did not pass it');
});

test('an instance with a longer time to live is purged when due, though the walk purged instances that ended after it', async () => {
  const clock = new ManualClock(new Date('2026-06-01T00:00:00Z'));
  const none = await version(null);
  const sixtyDays = await version(60);
  const longer = await instance('2026-04-20T00:00:00Z', 4, sixtyDays); // 42 days ago: kept
  const later = await instance('2026-04-25T00:00:00Z', 4, none); // 37 days ago: purged
  const housekeeping = new Housekeeping({
    pool: db.pool,
    clock,
    retentionDays: 30,
    batchSize: 10,
    pauseMs: 0,
  });

  await housekeeping.runOnce();
  assert.equal(await historyOf(later), 0);
  assert.equal(await historyOf(longer), 4);

  clock.set('2026-06-25T00:00:00Z'); // 66 days after it ended
  await housekeeping.runOnce();
  assert.equal(await historyOf(longer), 0, 'the instance ended before the last purged one is not skipped');
});

test("a changed time to live applies to the version's instances the walk has already passed", async () => {
  const clock = new ManualClock(new Date('2026-09-01T00:00:00Z'));
  const changed = await version(60);
  const old = await instance('2026-06-01T00:00:00Z', 2, changed); // 92 days ago: purged, the cursor is on it
  const middle = await instance('2026-07-20T00:00:00Z', 2, changed); // 43 days ago: kept
  const housekeeping = new Housekeeping({
    pool: db.pool,
    clock,
    retentionDays: 30,
    batchSize: 10,
    pauseMs: 0,
  });
  await housekeeping.runOnce();
  assert.equal(await historyOf(old), 0);
  assert.equal(await historyOf(middle), 2);

  assert.equal((await setHistoryTimeToLive(db.pool, changed, 10))?.history_time_to_live, 10);
  await housekeeping.runOnce();
  assert.equal(await historyOf(middle), 0, 'shortened: purged at the next run');

  await setHistoryTimeToLive(db.pool, changed, 100);
  const recent = await instance('2026-07-25T00:00:00Z', 2, changed); // 38 days ago
  await housekeeping.runOnce();
  assert.equal(await historyOf(recent), 2, 'lengthened: kept');
  await setHistoryTimeToLive(db.pool, changed, null);
  await housekeeping.runOnce();
  assert.equal(await historyOf(recent), 0, 'cleared: the global retention of 30 days applies');
});
