import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Registry } from 'prom-client';
import { ModelCache } from '../../../../src/workflow/deployments/model-cache.js';
import { EngineMetrics } from '../../../../src/workflow/engine/driver/engine-metrics.js';
import { combineImmediateWork } from '../../../../src/workflow/engine/driver/immediate-work.js';
import { InstanceContentionError } from '../../../../src/workflow/engine/driver/driver-errors.js';
import { InstanceDriver } from '../../../../src/workflow/engine/driver/instance-driver.js';
import { isNothingLeftToDo } from '../../../../src/workflow/engine/timer-firing.js';
import { WorkflowErrors } from '../../../../src/workflow/errors.js';
import { readInstance, readInstances } from '../../../../src/workflow/engine/store/process-instances.js';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

// The timer executor fires a batch's instance timers with one set-wise write and its timer starts
// with another. These tests check that every kind of row lands on the right instance, that starts
// of several keys get gap-free counters per key, and that a stale read in a batch falls back to a
// fresh one.

let f: EngineFixture;
let now = new Date('2026-11-21T10:00:00Z');
const MINUTE = 60_000;

before(async () => {
  f = await createEngineFixture({ WORKFLOW_JWT_TTL_SECONDS: '86400' }, { now: () => now });
  assert.equal((await f.deploy('batch-mix.bpmn')).statusCode, 201);
});
after(() => f.close());

const rows = async <T extends object>(sql: string, values: unknown[] = []) =>
  (await f.workflow.database.pool.query<T>(sql, values)).rows;

test('one batch fires timers of many instances: each instance gets exactly its own rows', async () => {
  const handovers = [await f.start('handover'), await f.start('handover'), await f.start('handover')];
  const chains = [await f.start('chain'), await f.start('chain')];
  now = new Date(now.getTime() + 31 * MINUTE);
  const fired = await f.workflow.service.fireDueTimers();
  // 5 instance timers and the 5 timer starts of daily and weekly, due at 10:20.
  assert.deepEqual(fired, { claimed: 10, fired: 10, failed: 0 }, 'one batch');

  for (const { id } of handovers) {
    assert.deepEqual((await f.instance(id)).active_element_ids, ['followUp']);
    const userTasks = await rows('SELECT 1 FROM user_tasks WHERE process_instance_id = $1', [id]);
    assert.equal(userTasks.length, 0, 'the interrupted user task is gone');
    const external = await rows<{ topic: string; activity_id: string }>(
      'SELECT topic, activity_id FROM external_tasks WHERE process_instance_id = $1',
      [id],
    );
    assert.deepEqual(external, [{ topic: 'follow-up', activity_id: 'followUp' }]);
    const history = await rows<{ element_id: string }>(
      `SELECT element_id FROM process_history WHERE process_instance_id = $1 AND kind = 'elementActivated' ORDER BY id`,
      [id],
    );
    assert.deepEqual(
      history.map((h) => h.element_id),
      ['s1', 'approve', 'late', 'followUp'],
    );
  }
  for (const { id } of chains) {
    assert.deepEqual((await f.instance(id)).active_element_ids, ['second']);
    const timers = await rows<{ element_id: string; due_at: Date }>(
      'SELECT element_id, due_at FROM timer_jobs WHERE process_instance_id = $1',
      [id],
    );
    assert.deepEqual(timers, [{ element_id: 'second', due_at: new Date(now.getTime() + 60 * MINUTE) }]);
  }
  const tasks = await rows<{ topic: string }>(
    'SELECT topic FROM external_tasks WHERE process_instance_id = ANY($1::uuid[])',
    [chains.map((c) => c.id)],
  );
  assert.equal(tasks.length, 0, 'no row of another instance leaked onto the chains');
});

test('timer starts of two keys in one batch get consecutive counters per key, each with its user task', async () => {
  const started = await rows<{ id: string; process_key: string; counter: string }>(
    `SELECT id, process_key, counter FROM process_instances WHERE process_key IN ('daily', 'weekly')
     ORDER BY process_key, counter`,
  );
  assert.deepEqual(
    started.map((i) => `${i.process_key}#${i.counter}`),
    ['daily#1', 'daily#2', 'weekly#1', 'weekly#2', 'weekly#3'],
  );
  for (const instance of started) {
    const tasks = await rows<{ activity_id: string }>(
      'SELECT activity_id FROM user_tasks WHERE process_instance_id = $1',
      [instance.id],
    );
    assert.deepEqual(tasks, [{ activity_id: instance.process_key === 'daily' ? 'check' : 'review' }]);
  }
  const keys = await rows<{ process_key: string; last_counter: string }>(
    `SELECT process_key, last_counter FROM process_keys WHERE process_key IN ('daily', 'weekly') ORDER BY 1`,
  );
  assert.deepEqual(
    keys.map((k) => [k.process_key, Number(k.last_counter)]),
    [
      ['daily', 2],
      ['weekly', 3],
    ],
  );
  assert.equal((await rows('SELECT 1 FROM timer_jobs WHERE process_instance_id IS NULL')).length, 0);
});

test('applyAll: an instance changed since the batch read it is read again; an ended one is its own error', async () => {
  const pool = f.workflow.database.pool;
  const driver = new InstanceDriver({
    pool,
    models: new ModelCache(pool),
    announcer: { announce: () => undefined },
    immediate: combineImmediateWork([]),
    clock: { now: () => now },
    metrics: new EngineMetrics(new Registry()),
    maxStepsPerCall: 1_000,
    maxMultiInstance: 10_000,
  });
  const fresh = await f.start('handover');
  const stale = await f.start('handover');
  const ended = await f.start('handover');
  const read = new Map(
    (await readInstances(pool, [fresh.id, stale.id, ended.id])).map((s) => [s.record.id, s]),
  );
  // After the read: one instance changes (its revision moves on), another is cancelled.
  await pool.query('UPDATE process_instances SET revision = revision + 1 WHERE id = $1', [stale.id]);
  const cancelled = await f.workflow.request({
    method: 'POST',
    url: `/api/v1/process-instances/${ended.id}/cancel`,
    token: f.tokens.operator,
  });
  assert.equal(cancelled.statusCode, 200, cancelled.body);
  const waitOf = (id: string) => {
    const wait = Object.values(read.get(id)?.engineState.waits ?? {}).find((w) => w.elementId === 'late');
    assert.ok(wait, `instance ${id} waits on its boundary timer`);
    return wait.waitId;
  };
  const items = [fresh, stale, ended].map(({ id }) => ({
    instanceId: id,
    event: { type: 'complete' as const, waitId: waitOf(id) },
    stored: read.get(id) ?? null,
  }));

  const client = await pool.connect();
  let outcomes;
  try {
    await client.query('BEGIN');
    outcomes = await driver.applyAll(items, client);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  assert.deepEqual(
    outcomes.map((o) => o.ok),
    [true, true, false],
  );
  const refused = outcomes[2];
  assert.ok(refused && !refused.ok);
  assert.equal((refused.error as { statusCode?: number }).statusCode, 409, 'the ended instance: conflict');
  for (const { id } of [fresh, stale]) {
    const stored = await readInstance(pool, id);
    assert.deepEqual(
      Object.values(stored?.engineState.waits ?? {}).map((w) => w.elementId),
      ['followUp'],
    );
    const external = await rows('SELECT 1 FROM external_tasks WHERE process_instance_id = $1', [id]);
    assert.equal(external.length, 1, 'one follow-up task, written once');
  }
  assert.equal(
    (await rows('SELECT 1 FROM external_tasks WHERE process_instance_id = $1', [ended.id])).length,
    0,
  );
});

test('a timer whose instance ended or whose wait closed has nothing left to do; lost races are failures', () => {
  assert.equal(isNothingLeftToDo(WorkflowErrors.notFound('No such wait')), true);
  assert.equal(isNothingLeftToDo(WorkflowErrors.conflict('The process instance is completed')), true);
  assert.equal(isNothingLeftToDo(new InstanceContentionError()), false, 'retried, not dropped');
  assert.equal(new InstanceContentionError().statusCode, 409, 'an API client still sees 409');
  assert.equal(isNothingLeftToDo(new Error('connection reset')), false);
});
