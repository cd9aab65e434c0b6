import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

// A claimed batch reads its instances in one query before firing; a second timer of the same
// instance in that batch then holds a stale read, which the engine's revision guard must catch.

let f: EngineFixture;
let now = new Date('2026-11-21T10:00:00Z');

before(async () => {
  f = await createEngineFixture({ WORKFLOW_JWT_TTL_SECONDS: '86400' }, { now: () => now });
  assert.equal((await f.deploy('parallel-timers.bpmn')).statusCode, 201);
});
after(() => f.close());

test('two timers of one instance fired in one batch both count: the join completes the instance', async () => {
  const instances = [await f.start('both'), await f.start('both'), await f.start('both')];
  now = new Date(now.getTime() + 60_000);
  const fired = await f.workflow.service.fireDueTimers();
  assert.deepEqual(fired, { claimed: 6, fired: 6, failed: 0 }, 'one batch');
  for (const instance of instances) assert.equal((await f.instance(instance.id)).state, 'completed');
  const { rows } = await f.workflow.database.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM process_history
     WHERE process_instance_id = ANY($1::uuid[]) AND element_id IN ('t1', 't2') AND kind = 'elementCompleted'`,
    [instances.map((instance) => instance.id)],
  );
  assert.equal(rows[0]?.n, 6, 'each timer completed once');
  assert.equal((await f.workflow.database.pool.query('SELECT 1 FROM timer_jobs')).rowCount, 0);
});
