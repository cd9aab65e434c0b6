import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';

interface Batch {
  id: string;
  type: string;
  state: string;
  total: number;
  done: number;
  failed: number;
  failures: { instance_id: string; reason: string }[];
  created_at: string;
  finished_at: string | null;
}

describe('batches (POST/GET /api/v1/batches)', () => {
  let f: EngineFixture;

  const create = (body: Record<string, unknown>, token = f.tokens.operator) =>
    f.workflow.request({ method: 'POST', url: '/api/v1/batches', token, body: { org_id: f.orgId, ...body } });
  const get = (id: string, token = f.tokens.reader) =>
    f.workflow.request({ method: 'GET', url: `/api/v1/batches/${id}`, token });
  const finished = async (id: string): Promise<Batch> => {
    for (let i = 0; i < 400; i++) {
      const batch = (await get(id)).json() as Batch;
      if (batch.state === 'completed') return batch;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the batch did not complete');
  };
  /** Starts instances whose charge task failed for good: each has one open incident. */
  const withIncidents = async (count: number, businessKey: string) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const response = await f.workflow.request({
        method: 'POST',
        url: '/api/v1/process-instances',
        token: f.tokens.operator,
        body: { org_id: f.orgId, process_key: 'shipping', business_key: businessKey },
      });
      ids.push((response.json() as { id: string }).id);
    }
    const tasks = (await f.fetch('worker', 'charge', 100)).filter((t) => ids.includes(t.process_instance_id));
    assert.equal(tasks.length, count);
    for (const task of tasks) {
      const failed = await f.workflow.request({
        method: 'POST',
        url: `/api/v1/external-tasks/${task.id}/failure`,
        body: { worker_id: 'worker', error_message: 'card declined', retries: 0, retry_timeout_ms: 0 },
      });
      assert.equal(failed.statusCode, 204, failed.body);
    }
    return ids;
  };

  before(async () => {
    f = await createEngineFixture();
    assert.equal((await f.deploy('migrate-v1.bpmn')).statusCode, 201);
  });
  after(() => f?.close());

  test('a retryIncidents batch over a filter resumes each incident once', async () => {
    const ids = await withIncidents(6, 'retry-all');
    const response = await create({
      type: 'retryIncidents',
      filter: { state: 'incident', business_key: 'retry-all' },
    });
    assert.equal(response.statusCode, 201, response.body);
    const created = response.json() as Batch;
    assert.equal(created.total, 6);
    const batch = await finished(created.id);
    assert.deepEqual([batch.done, batch.failed, batch.failures], [6, 0, []]);
    assert.ok(batch.finished_at !== null);
    const { rows } = await f.workflow.database.pool.query<{
      id: string;
      resolved: string;
      open: string;
      tasks: string;
    }>(
      `SELECT p.id,
              (SELECT count(*) FROM incidents i WHERE i.process_instance_id = p.id AND i.resolved_at IS NOT NULL) AS resolved,
              (SELECT count(*) FROM incidents i WHERE i.process_instance_id = p.id AND i.resolved_at IS NULL) AS open,
              (SELECT count(*) FROM external_tasks t WHERE t.process_instance_id = p.id) AS tasks
       FROM process_instances p WHERE p.id = ANY($1::uuid[])`,
      [ids],
    );
    for (const row of rows) assert.deepEqual([row.resolved, row.open, row.tasks], ['1', '0', '1'], row.id);
    for (const id of ids) assert.equal((await f.instance(id)).state, 'running');
  });

  test('a cancel batch over instance ids cancels each instance', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await f.start('shipping')).id);
    const response = await create({ type: 'cancel', instance_ids: ids });
    assert.equal(response.statusCode, 201, response.body);
    const batch = await finished((response.json() as Batch).id);
    assert.deepEqual([batch.total, batch.done, batch.failed], [3, 3, 0]);
    for (const id of ids) assert.equal((await f.instance(id)).state, 'cancelled');
  });

  test('suspend and resume batches flip each running instance and fail an ended one', async () => {
    const running = [(await f.start('shipping')).id, (await f.start('shipping')).id];
    const ended = (await f.start('shipping')).id;
    await f.workflow.request({
      method: 'POST',
      url: `/api/v1/process-instances/${ended}/cancel`,
      token: f.tokens.operator,
    });
    const suspend = await create({ type: 'suspend', instance_ids: [...running, ended] });
    assert.equal(suspend.statusCode, 201, suspend.body);
    const suspended = await finished((suspend.json() as Batch).id);
    assert.deepEqual([suspended.done, suspended.failed], [2, 1]);
    assert.match(suspended.failures[0]?.reason ?? '', /cancelled/);
    for (const id of running) {
      assert.equal((await f.instance(id)).suspended, true);
      const { rows } = await f.workflow.database.pool.query<{ actor: string }>(
        `SELECT data->>'actor' AS actor FROM process_history WHERE process_instance_id = $1 AND kind = 'instanceSuspended'`,
        [id],
      );
      assert.equal(rows.length, 1);
      assert.ok(rows[0]?.actor);
    }
    const resume = await create({ type: 'resume', instance_ids: running });
    const resumed = await finished((resume.json() as Batch).id);
    assert.deepEqual([resumed.done, resumed.failed], [2, 0]);
    for (const id of running) assert.equal((await f.instance(id)).suspended, false);
  });

  test("a modify batch moves each instance's token and needs a modification", async () => {
    const ids = [(await f.start('shipping')).id, (await f.start('shipping')).id];
    const missing = await create({ type: 'modify', instance_ids: ids });
    assert.equal(missing.statusCode, 400, missing.body);
    const response = await create({
      type: 'modify',
      instance_ids: ids,
      modification: {
        instructions: [
          { type: 'cancelActivity', activity_id: 'charge' },
          { type: 'startBeforeActivity', activity_id: 'approve' },
        ],
      },
    });
    assert.equal(response.statusCode, 201, response.body);
    const batch = await finished((response.json() as Batch).id);
    assert.deepEqual([batch.done, batch.failed], [2, 0]);
    for (const id of ids) {
      const instance = await f.instance(id);
      assert.deepEqual(instance.active_element_ids, ['approve']);
      const { rows } = await f.workflow.database.pool.query(
        `SELECT 1 FROM process_history WHERE process_instance_id = $1 AND kind = 'modified'`,
        [id],
      );
      assert.equal(rows.length, 1);
    }
  });

  test('a failed item records its reason and the batch goes on', async () => {
    const [withIncident] = await withIncidents(1, 'mixed');
    const healthy = (await f.start('shipping')).id;
    const ended = (await f.start('shipping')).id;
    await f.workflow.request({
      method: 'POST',
      url: `/api/v1/process-instances/${ended}/cancel`,
      token: f.tokens.operator,
    });
    assert.ok(withIncident);
    const response = await create({ type: 'retryIncidents', instance_ids: [healthy, withIncident, ended] });
    const batch = await finished((response.json() as Batch).id);
    assert.deepEqual([batch.total, batch.done, batch.failed], [3, 1, 2]);
    const reasons = new Map(batch.failures.map((x) => [x.instance_id, x.reason]));
    assert.match(reasons.get(healthy) ?? '', /no open incident/);
    assert.match(reasons.get(ended) ?? '', /no open incident/);
    assert.equal((await f.instance(withIncident)).state, 'running');
  });

  test('an empty selection, an unknown type, or both ids and filter are 400', async () => {
    const empty = await create({ type: 'cancel', filter: { business_key: 'nobody-has-this' } });
    assert.equal(empty.statusCode, 400, empty.body);
    assert.match(empty.body, /no process instance/);
    const unknown = await create({ type: 'explode', filter: {} });
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.body, /Unknown batch type explode/);
    const both = await create({ type: 'cancel', filter: {}, instance_ids: [f.orgId] });
    assert.equal(both.statusCode, 400);
    const neither = await create({ type: 'cancel' });
    assert.equal(neither.statusCode, 400);
    const list = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/batches?org_id=${f.orgId}`,
      token: f.tokens.reader,
    });
    assert.ok(
      (list.json() as Batch[]).every((b) => b.total > 0),
      'a refused batch leaves nothing behind',
    );
  });

  test('creating needs Operator; reading needs a role in the org', async () => {
    const id = (await f.start('shipping')).id;
    for (const role of ['reader', 'developer', 'outsider'] as const) {
      const refused = await create({ type: 'cancel', instance_ids: [id] }, f.tokens[role]);
      assert.equal(refused.statusCode, 403, role);
    }
    const created = (await create({ type: 'cancel', instance_ids: [id] })).json() as Batch;
    assert.equal((await get(created.id, f.tokens.developer)).statusCode, 200);
    assert.equal((await get(created.id, f.tokens.outsider)).statusCode, 403);
    const list = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/batches?org_id=${f.orgId}`,
      token: f.tokens.outsider,
    });
    assert.equal(list.statusCode, 403);
    const listed = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/batches?org_id=${f.orgId}&limit=1`,
      token: f.tokens.reader,
    });
    assert.deepEqual(
      (listed.json() as Batch[]).map((b) => b.id),
      [created.id],
      'newest first',
    );
  });
});

describe('a batch larger than WORKFLOW_BATCH_MAX_ITEMS', () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture({ WORKFLOW_BATCH_MAX_ITEMS: '3' });
    assert.equal((await f.deploy('migrate-v1.bpmn')).statusCode, 201);
  });
  after(() => f?.close());

  test('is refused with 400 and nothing is created; one of the limit is created', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await f.start('shipping')).id);
    const create = (filter: Record<string, unknown>) =>
      f.workflow.request({
        method: 'POST',
        url: '/api/v1/batches',
        token: f.tokens.operator,
        body: { org_id: f.orgId, type: 'suspend', filter },
      });
    const refused = await create({ process_key: 'shipping' });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.match((refused.json() as { message: string }).message, /more than 3 process instances/);
    const { rows } = await f.workflow.database.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM batches',
    );
    assert.equal(rows[0]?.n, 0);
    const empty = await create({ process_key: 'nothing-here' });
    assert.equal(empty.statusCode, 400, 'an empty selection is still its own error');
    assert.match((empty.json() as { message: string }).message, /no process instance/);
    const within = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/batches',
      token: f.tokens.operator,
      body: { org_id: f.orgId, type: 'suspend', instance_ids: ids.slice(0, 3) },
    });
    assert.equal(within.statusCode, 201, within.body);
    assert.equal((within.json() as Batch).total, 3);
  });
});
