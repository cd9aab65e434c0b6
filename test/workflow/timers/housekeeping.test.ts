import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
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

async function instance(endedAt: string | null, historyRows: number): Promise<string> {
  const id = randomUUID();
  await db.pool.query(
    `INSERT INTO process_instances (id, org_id, definition_id, process_key, counter, state, engine_state, started_at, ended_at)
     VALUES ($1, $2, $3, 'p', $4, $5, '{}', '2025-01-01T00:00:00Z', $6)`,
    [id, orgId, definitionId, ++counter, endedAt ? 'completed' : 'running', endedAt],
  );
  await db.pool.query(
    `INSERT INTO process_history (process_instance_id, kind, element_id, element_type, at)
     SELECT $1, 'entered', 'e' || n, 'task', '2025-01-01T00:00:00Z' FROM generate_series(1, $2) AS n`,
    [id, historyRows],
  );
  return id;
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
  });
  clock.set('2026-03-25T00:00:00Z');
  assert.deepEqual(await housekeeping.runOnce(), {
    instances: 1,
    historyRows: 4,
    batches: 1,
    expiredMessages: 0,
    finishedBatches: 0,
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
