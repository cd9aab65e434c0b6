import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { withTransaction, type Pool } from '../../../src/platform/database/pool.js';
import { Housekeeping } from '../../../src/workflow/timers/housekeeping.js';
import { purgeFinishedInstances } from '../../../src/workflow/timers/instance-retention.js';
import { createMigratedDatabase, type TestDatabase } from '../../helpers/database.js';
import { ManualClock, seedDefinition } from './timer-fixture.js';

/**
 * WORKFLOW_INSTANCE_RETENTION_DAYS: the leader's housekeeping deletes finished instances, rows and
 * all, once they ended longer ago than both the instance retention and their history's retention.
 */

let db: TestDatabase;
let orgId: string;
let seeded: string;
let counter = 0;

before(async () => {
  db = await createMigratedDatabase('workflow');
  ({ orgId, definitionId: seeded } = await seedDefinition(db.pool));
});
after(() => db.drop());

// A version of a key of its own (so each test walks only its own instances).
async function version(historyTimeToLive: number | null = null): Promise<string> {
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO process_definitions
       (org_id, process_group_id, process_key, version, name, xml, content_hash, model, history_time_to_live)
     SELECT org_id, process_group_id, 'ret-' || $2, 1, 'P', '<xml/>', 'h', '{}', $3
     FROM process_definitions WHERE id = $1
     RETURNING id`,
    [seeded, randomUUID(), historyTimeToLive],
  );
  const row = rows[0];
  if (!row) throw new Error('seed failed');
  return row.id;
}

async function instance(
  definitionId: string,
  endedAt: string | null,
  options: { parent?: string; state?: string; historyRows?: number } = {},
): Promise<string> {
  const id = randomUUID();
  await db.pool.query(
    `INSERT INTO process_instances
       (id, org_id, definition_id, process_key, counter, state, variables, engine_state, started_at, ended_at,
        parent_instance_id)
     VALUES ($1, $2, $3, 'p', $4, $5, '{"amount": 1}', '{}', '2025-01-01T00:00:00Z', $6, $7)`,
    [
      id,
      orgId,
      definitionId,
      ++counter,
      options.state ?? (endedAt ? 'completed' : 'running'),
      endedAt,
      options.parent ?? null,
    ],
  );
  await db.pool.query(
    `INSERT INTO process_history (process_instance_id, kind, element_id, element_type, at)
     SELECT $1, 'entered', 'e' || n, 'task', '2025-01-01T00:00:00Z' FROM generate_series(1, $2) AS n`,
    [id, options.historyRows ?? 0],
  );
  return id;
}

async function exists(id: string): Promise<boolean> {
  return (await db.pool.query('SELECT 1 FROM process_instances WHERE id = $1', [id])).rowCount === 1;
}

async function count(table: string, id: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${table} WHERE process_instance_id = $1`,
    [id],
  );
  return rows[0]?.n ?? 0;
}

function housekeeping(
  clock: ManualClock,
  options: { instanceDays?: number; pool?: Pool; batchSize?: number },
) {
  return new Housekeeping({
    pool: options.pool ?? db.pool,
    clock,
    retentionDays: 30,
    instanceRetentionDays: options.instanceDays,
    batchSize: options.batchSize ?? 10,
    pauseMs: 0,
  });
}

test('deletes instances that ended before the retention with what hangs off them; keeps newer and running ones', async () => {
  const clock = new ManualClock(new Date('2026-06-01T00:00:00Z'));
  const v = await version();
  const old = await instance(v, '2026-03-01T00:00:00Z', { historyRows: 3 }); // 92 days ago
  const cancelled = await instance(v, '2026-03-02T00:00:00Z', { state: 'cancelled' });
  const terminated = await instance(v, '2026-03-03T00:00:00Z', { state: 'terminated' });
  const recent = await instance(v, '2026-04-20T00:00:00Z', { historyRows: 2 }); // 42 days ago
  const running = await instance(v, null, { historyRows: 2 });
  const incident = await instance(v, null, { state: 'incident' });
  await db.pool.query(
    `INSERT INTO incidents (id, org_id, process_instance_id, activity_id, kind, message, created_at, resolved_at)
     VALUES (gen_random_uuid(), $1, $2, 'a', 'failedJob', 'boom', '2026-02-01T00:00:00Z', '2026-02-02T00:00:00Z'),
            (gen_random_uuid(), $1, $3, 'a', 'failedJob', 'boom', '2026-02-01T00:00:00Z', NULL)`,
    [orgId, old, incident],
  );
  await db.pool.query(
    `INSERT INTO user_tasks (id, org_id, process_instance_id, activity_id) VALUES (gen_random_uuid(), $1, $2, 'u')`,
    [orgId, old],
  );

  const result = await housekeeping(clock, { instanceDays: 60 }).runOnce();
  assert.equal(result.deletedInstances, 3);
  for (const id of [old, cancelled, terminated]) assert.equal(await exists(id), false);
  assert.equal(await count('process_history', old), 0, 'its history went first');
  assert.equal(await count('incidents', old), 0, 'a resolved incident went with its instance');
  assert.equal(await count('user_tasks', old), 0, 'so did any row left hanging off it');
  assert.equal(await exists(recent), true, 'ended 42 days ago, retention 60');
  assert.equal(await count('process_history', recent), 0, 'its history (30 days) went, the row stays');
  assert.equal(await exists(running), true);
  assert.equal(await count('process_history', running), 2);
  assert.equal(await exists(incident), true, 'an instance in incident is not finished');
  assert.equal(await count('incidents', incident), 1);

  clock.set('2026-06-20T00:00:00Z'); // recent ended 61 days ago
  assert.equal((await housekeeping(clock, { instanceDays: 60 }).runOnce()).deletedInstances, 1);
  assert.equal(await exists(recent), false);
  assert.equal(await exists(running), true);
});

test('without WORKFLOW_INSTANCE_RETENTION_DAYS instance rows stay, whatever their age', async () => {
  const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
  const v = await version();
  const ancient = await instance(v, '2026-01-01T00:00:00Z', { historyRows: 2 });
  const result = await housekeeping(clock, {}).runOnce();
  assert.equal(result.deletedInstances, 0);
  assert.equal(await exists(ancient), true);
  assert.equal(await count('process_history', ancient), 0, 'only the history went');
});

test('an instance row is never deleted before its history: the longer of the two retentions applies', async () => {
  const clock = new ManualClock(new Date('2026-06-01T00:00:00Z'));
  const longHistory = await version(100); // camunda:historyTimeToLive 100 days
  const globalHistory = await version(null); // WORKFLOW_HISTORY_RETENTION_DAYS 30
  const keptForHistory = await instance(longHistory, '2026-03-01T00:00:00Z', { historyRows: 2 }); // 92 days
  const due = await instance(globalHistory, '2026-04-20T00:00:00Z', { historyRows: 2 }); // 42 days
  await housekeeping(clock, { instanceDays: 7 }).runOnce();
  assert.equal(await exists(keptForHistory), true, 'its history has 8 more days');
  assert.equal(await count('process_history', keptForHistory), 2);
  assert.equal(await exists(due), false, 'past both 7 and 30 days');

  clock.set('2026-06-09T00:00:01Z'); // 100 days and a second after it ended
  await housekeeping(clock, { instanceDays: 7 }).runOnce();
  assert.equal(await exists(keptForHistory), false);
  assert.equal(await count('process_history', keptForHistory), 0);
});

test('a finished child of a running parent, and a finished parent of a running child, are kept', async () => {
  const clock = new ManualClock(new Date('2026-06-01T00:00:00Z'));
  const v = await version();
  const runningParent = await instance(v, null);
  const childOfRunning = await instance(v, '2026-01-01T00:00:00Z', { parent: runningParent });
  const endedParent = await instance(v, '2026-01-01T00:00:00Z');
  const runningChild = await instance(v, null, { parent: endedParent });
  const finishedParent = await instance(v, '2026-01-02T00:00:00Z');
  const finishedChild = await instance(v, '2026-01-02T00:00:00Z', { parent: finishedParent });
  const oldParent = await instance(v, '2026-01-03T00:00:00Z');
  const recentChild = await instance(v, '2026-05-30T00:00:00Z', { parent: oldParent });

  const result = await housekeeping(clock, { instanceDays: 30 }).runOnce();
  assert.equal(result.deletedInstances, 3);
  assert.equal(await exists(childOfRunning), true, 'its parent still runs');
  assert.equal(await exists(endedParent), true, 'one of its children still runs');
  assert.equal(await exists(finishedParent), false, 'parent and child both finished long ago');
  assert.equal(await exists(finishedChild), false);
  assert.equal(await exists(oldParent), false, 'a finished child does not keep its parent');
  const { rows } = await db.pool.query<{ parent_instance_id: string | null }>(
    'SELECT parent_instance_id FROM process_instances WHERE id = $1',
    [recentChild],
  );
  assert.deepEqual(rows, [{ parent_instance_id: null }], 'the recent child stays, without its parent');

  await db.pool.query(`UPDATE process_instances SET state = 'completed', ended_at = $2 WHERE id = $1`, [
    runningParent,
    '2026-04-01T00:00:00Z',
  ]);
  await db.pool.query(`UPDATE process_instances SET state = 'completed', ended_at = $2 WHERE id = $1`, [
    runningChild,
    '2026-04-01T00:00:00Z',
  ]);
  assert.equal((await housekeeping(clock, { instanceDays: 30 }).runOnce()).deletedInstances, 4);
  for (const id of [runningParent, childOfRunning, endedParent, runningChild])
    assert.equal(await exists(id), false);
});

test('a backlog is deleted in bounded transactions until none is left, and a locked row is skipped, not waited for', async () => {
  const clock = new ManualClock(new Date('2026-06-01T00:00:00Z'));
  const v = await version();
  await db.pool.query(
    `INSERT INTO process_instances (id, org_id, definition_id, process_key, counter, state, engine_state, started_at, ended_at)
     SELECT gen_random_uuid(), $1, $2, 'p', 100000 + n, 'completed', '{}', '2025-01-01T00:00:00Z',
            timestamptz '2026-01-01T00:00:00Z' + n * interval '1 minute'
     FROM generate_series(1, 253) AS n`,
    [orgId, v],
  );
  const locked = await instance(v, '2026-01-01T00:00:00Z');
  const holder = await db.pool.connect();
  let transactions = 0;
  // Counts the transactions housekeeping opens (one connection each).
  const counting = new Proxy(db.pool, {
    get(target, property, receiver) {
      if (property === 'connect')
        return () => {
          transactions++;
          return target.connect();
        };
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM process_instances WHERE id = $1 FOR UPDATE', [locked]);
    const result = await housekeeping(clock, { instanceDays: 30, batchSize: 10, pool: counting }).runOnce();
    assert.equal(result.deletedInstances, 253, 'the whole backlog in one run');
    assert.ok(transactions >= 26, `253 instances need at least 26 transactions of ten (${transactions})`);
    assert.equal(await exists(locked), true, 'the row another transaction holds is skipped');
  } finally {
    await holder.query('ROLLBACK');
    holder.release();
  }
  const { rows } = await db.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM process_instances WHERE definition_id = $1',
    [v],
  );
  assert.equal(rows[0]?.n, 1);
  assert.equal((await housekeeping(clock, { instanceDays: 30 }).runOnce()).deletedInstances, 1);
  assert.equal(await exists(locked), false, 'and deleted by the next run');
});

test('each transaction deletes at most `perDelete` instances, until the backlog is gone', async () => {
  const v = await version();
  await db.pool.query(
    `INSERT INTO process_instances (id, org_id, definition_id, process_key, counter, state, engine_state, started_at, ended_at)
     SELECT gen_random_uuid(), $1, $2, 'p', 200000 + n, 'completed', '{}', '2025-01-01T00:00:00Z',
            timestamptz '2026-01-01T00:00:00Z' + n * interval '1 minute'
     FROM generate_series(1, 47) AS n`,
    [orgId, v],
  );
  const kept = await instance(v, '2026-05-01T00:00:00Z');
  const pages: number[] = [];
  const result = await purgeFinishedInstances({
    definitionId: v,
    endedBefore: new Date('2026-04-01T00:00:00Z'),
    perDelete: 10,
    historyBatchSize: 10,
    pauseMs: 0,
    signal: undefined,
    transaction: (work) =>
      withTransaction(db.pool, async (client) => {
        const before = await client.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM process_instances WHERE definition_id = $1',
          [v],
        );
        const outcome = await work(client);
        const left = await client.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM process_instances WHERE definition_id = $1',
          [v],
        );
        pages.push((before.rows[0]?.n ?? 0) - (left.rows[0]?.n ?? 0));
        return outcome;
      }),
  });
  assert.equal(result.instances, 47);
  assert.deepEqual(pages, [10, 10, 10, 10, 7], 'four full transactions and a short last one');
  assert.equal(await exists(kept), true, 'ended after the cutoff');
});
