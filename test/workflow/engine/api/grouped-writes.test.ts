import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Registry } from 'prom-client';
import type { Pool } from '../../../../src/platform/database/pool.js';
import { ModelCache } from '../../../../src/workflow/deployments/model-cache.js';
import { EngineMetrics } from '../../../../src/workflow/engine/driver/engine-metrics.js';
import { combineImmediateWork } from '../../../../src/workflow/engine/driver/immediate-work.js';
import { StaleDefinitionError } from '../../../../src/workflow/engine/driver/driver-errors.js';
import { InstanceDriver } from '../../../../src/workflow/engine/driver/instance-driver.js';
import { readInstance } from '../../../../src/workflow/engine/store/process-instances.js';
import type { Variables } from '../../../../src/workflow/engine/runtime/index.js';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

// API starts and worker completions are written in groups: calls that arrive while a write is in
// flight share the next statement. A worker's completion of an instance this process wrote last
// starts from that state without reading the row; the revision guard makes that safe. These tests
// check the grouping, per-call outcomes, and every way the remembered state can be out of date.

let f: EngineFixture;

before(async () => {
  f = await createEngineFixture();
  assert.equal((await f.deploy('payment.bpmn')).statusCode, 201);
  assert.equal((await f.deploy('parallel.bpmn')).statusCode, 201);
});
after(() => f.close());

const pool = () => f.workflow.database.pool;

/** A driver of its own (as another weft process would have), counting the statements it writes with. */
function driverWithCount() {
  const statements: string[] = [];
  const counted = new Proxy(pool(), {
    get(target, property, receiver) {
      if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
      return (config: unknown, ...rest: unknown[]) => {
        const name = (config as { name?: unknown } | null)?.name;
        if (typeof name === 'string') statements.push(name);
        return (target.query as (...args: unknown[]) => unknown).call(target, config, ...rest);
      };
    },
  }) as Pool;
  const driver = new InstanceDriver({
    pool: counted,
    models: new ModelCache(counted),
    announcer: { announce: () => undefined },
    immediate: combineImmediateWork([]),
    clock: { now: () => new Date() },
    metrics: new EngineMetrics(new Registry()),
    maxStepsPerCall: 1_000,
    maxMultiInstance: 10_000,
  });
  const count = (shape: string) => statements.filter((name) => name.includes(shape)).length;
  return { driver, count };
}

async function definitionOf(processKey: string) {
  const { rows } = await pool().query<{ id: string; org_id: string; process_key: string }>(
    `SELECT id, org_id, process_key FROM process_definitions
     WHERE process_key = $1 AND NOT draft ORDER BY version DESC LIMIT 1`,
    [processKey],
  );
  assert.ok(rows[0], `${processKey} is deployed`);
  return rows[0];
}

async function lockTasksOf(instanceId: string, workerId: string) {
  const { rows } = await pool().query<{ id: string; activity_id: string }>(
    `UPDATE external_tasks SET worker_id = $2, lock_expires_at = now() + interval '1 minute'
     WHERE process_instance_id = $1 RETURNING id, activity_id`,
    [instanceId, workerId],
  );
  return new Map(rows.map((row) => [row.activity_id, row.id]));
}

/** A worker's completion of a task (its id is its wait's) through `driver`'s remembered state. */
function completeRemembered(driver: InstanceDriver, instanceId: string, taskId: string, workerId = 'w1') {
  return driver.applyToRecent({
    instanceId,
    event: { type: 'complete', waitId: taskId },
    heldTask: { taskId, workerId },
  });
}

test('concurrent starts share one statement, keep gap-free counters and their business keys; a refused one fails alone', async () => {
  const { driver, count } = driverWithCount();
  const definition = await definitionOf('payment');
  const before = await pool().query<{ last_counter: string }>(
    'SELECT last_counter FROM process_keys WHERE process_key = $1',
    ['payment'],
  );
  const base = Number(before.rows[0]?.last_counter);
  const starts = Array.from({ length: 20 }, (_, i) =>
    driver.startTogether(definition, {
      // A value JSON cannot hold: the engine refuses this start.
      variables: i === 7 ? ({ bad: undefined } as unknown as Variables) : { amount: i },
      businessKey: `order-${i}`,
      latestEnabled: true,
    }),
  );
  const outcomes = await Promise.allSettled(starts);

  const refused = outcomes[7];
  assert.equal(refused?.status, 'rejected');
  assert.equal(
    ((refused as PromiseRejectedResult).reason as { statusCode?: number }).statusCode,
    400,
    'bad variables: 400',
  );
  const started = outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value.instance);
  assert.equal(started.length, 19);
  assert.deepEqual(
    started.map((instance) => instance.counter),
    Array.from({ length: 19 }, (_, i) => base + 1 + i),
    'consecutive counters in the order of the calls, none lost to the refused start',
  );
  assert.deepEqual(
    started.map((instance) => instance.business_key),
    Array.from({ length: 20 }, (_, i) => `order-${i}`).filter((key) => key !== 'order-7'),
  );
  assert.equal(count('insert_instances'), 2, 'the first start alone, the other nineteen together');
  const tasks = await pool().query(
    'SELECT 1 FROM external_tasks WHERE process_instance_id = ANY($1::uuid[])',
    [started.map((instance) => instance.id)],
  );
  assert.equal(tasks.rowCount, 19, 'each instance got its own external task');
});

test('a grouped start by key whose version is no longer the latest writes nothing', async () => {
  const { driver } = driverWithCount();
  const { rows } = await pool().query<{ id: string; org_id: string; process_key: string }>(
    `INSERT INTO process_definitions (org_id, process_group_id, process_key, version, name, xml, content_hash, model)
     SELECT org_id, process_group_id, process_key, version + 1, name, xml, content_hash || '-next', model
     FROM process_definitions WHERE process_key = 'payment' ORDER BY version DESC LIMIT 1
     RETURNING id, org_id, process_key`,
  );
  assert.ok(rows[0]);
  const older = await pool().query<{ id: string; org_id: string; process_key: string }>(
    `SELECT id, org_id, process_key FROM process_definitions WHERE process_key = 'payment' AND id <> $1
     ORDER BY version DESC LIMIT 1`,
    [rows[0].id],
  );
  const counterBefore = await pool().query(
    `SELECT last_counter FROM process_keys WHERE process_key = 'payment'`,
  );
  await assert.rejects(
    driver.startTogether(older.rows[0] as { id: string; org_id: string; process_key: string }, {
      variables: {},
      businessKey: null,
      latestEnabled: true,
    }),
    StaleDefinitionError,
  );
  const counterAfter = await pool().query(
    `SELECT last_counter FROM process_keys WHERE process_key = 'payment'`,
  );
  assert.deepEqual(counterAfter.rows, counterBefore.rows, 'no counter taken');
  await pool().query('DELETE FROM process_definitions WHERE id = $1', [rows[0].id]);
});

test('completions of remembered instances are written together without reading the rows', async () => {
  const { driver, count } = driverWithCount();
  const definition = await definitionOf('fanout');
  const instances = await Promise.all(
    Array.from({ length: 5 }, () => driver.startTogether(definition, { variables: {}, businessKey: null })),
  );
  const items = [];
  for (const { instance } of instances) {
    const tasks = await lockTasksOf(instance.id, 'w1');
    items.push({ instance, taskId: tasks.get('a') ?? '' });
  }
  const reads = count('read');
  const driven = await Promise.all(
    items.map((item) => completeRemembered(driver, item.instance.id, item.taskId)),
  );
  assert.ok(
    driven.every((d) => d !== null),
    'every completion went the remembered way',
  );
  assert.equal(count('read'), reads, 'no instance was read');
  assert.equal(count('select_updates'), 2, 'the first alone, the other four together');
  for (const item of items) {
    const left = await pool().query<{ activity_id: string }>(
      'SELECT activity_id FROM external_tasks WHERE process_instance_id = $1 ORDER BY activity_id',
      [item.instance.id],
    );
    assert.deepEqual(
      left.rows.map((row) => row.activity_id),
      ['b', 'c'],
    );
  }
});

test('a remembered state is not used once another process wrote the instance, nor when the lock is gone', async () => {
  const mine = driverWithCount().driver;
  const other = driverWithCount().driver;
  const definition = await definitionOf('fanout');
  const { instance } = await mine.startTogether(definition, { variables: {}, businessKey: null });
  const tasks = await lockTasksOf(instance.id, 'w1');
  const [a, b, c] = ['a', 'b', 'c'].map((activity) => tasks.get(activity) ?? '') as [string, string, string];

  // Another process completes branch b: the state this driver remembers is now one revision behind.
  await other.apply(instance.id, { type: 'complete', waitId: b });
  assert.equal(
    await completeRemembered(mine, instance.id, a),
    null,
    'the guard refused the out-of-date state',
  );
  await mine.apply(instance.id, { type: 'complete', waitId: a });
  // Branch c's lock passes to another worker: w1 may no longer complete it, remembered or not.
  await pool().query(`UPDATE external_tasks SET worker_id = 'w2' WHERE id = $1`, [c]);
  assert.equal(await completeRemembered(mine, instance.id, c), null, 'the lock guard refused the write');
  const after = await readInstance(pool(), instance.id);
  const open = Object.values(after?.engineState.waits ?? {}).map((wait) => wait.elementId);
  assert.deepEqual(open, ['c'], 'both completions counted at the join, c still open');
});

test('a write inside a transaction that rolled back is not remembered', async () => {
  const mine = driverWithCount().driver;
  const other = driverWithCount().driver;
  const definition = await definitionOf('fanout');
  const { instance } = await mine.startTogether(definition, { variables: {}, businessKey: null });
  const tasks = await lockTasksOf(instance.id, 'w1');
  const stored = await readInstance(pool(), instance.id);
  const waitOf = (activity: string) =>
    Object.values(stored?.engineState.waits ?? {}).find((w) => w.waitId === tasks.get(activity))?.waitId ??
    '';

  const client = await pool().connect();
  try {
    await client.query('BEGIN');
    await mine.apply(instance.id, { type: 'complete', waitId: waitOf('a') }, undefined, client);
    await client.query('ROLLBACK');
  } finally {
    client.release();
  }
  // Another process now takes the revision the rolled-back write had, with a different state.
  await other.apply(instance.id, { type: 'complete', waitId: waitOf('b') });
  assert.equal(
    await completeRemembered(mine, instance.id, waitOf('c')),
    null,
    'nothing remembered: the rolled-back state must not be built on',
  );
  const after = await readInstance(pool(), instance.id);
  assert.deepEqual(
    Object.values(after?.engineState.waits ?? {})
      .map((wait) => wait.elementId)
      .sort(),
    ['a', 'c'],
  );
});
