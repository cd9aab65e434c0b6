import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, fixtureXml, type EngineFixture } from './engine-fixture.js';

describe('history housekeeping in the service (WORKFLOW_HISTORY_RETENTION_DAYS)', () => {
  let f: EngineFixture;
  let now = new Date('2026-11-01T10:00:00Z');
  const DAY = 86_400_000;
  before(async () => {
    f = await createEngineFixture(
      { WORKFLOW_JWT_TTL_SECONDS: String(100 * 86_400), WORKFLOW_HISTORY_RETENTION_DAYS: '10' },
      { now: () => now },
    );
    assert.equal((await f.deploy('scripts-only.bpmn')).statusCode, 201);
    assert.equal((await f.deploy('timers.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  const historyCount = async (id: string) =>
    (
      await f.workflow.database.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM process_history WHERE process_instance_id = $1',
        [id],
      )
    ).rows[0]?.n ?? 0;

  test('history of instances finished more than N days ago is deleted; running and recent ones keep theirs', async () => {
    const old = await f.start('pricing', { price: 1, quantity: 2 });
    const running = await f.start('escalate'); // waits at a user task with a 30-minute boundary timer
    assert.equal(old.state, 'completed');
    now = new Date(now.getTime() + 5 * DAY);
    const recent = await f.start('pricing', { price: 1, quantity: 2 });
    for (const id of [old.id, running.id, recent.id]) assert.ok((await historyCount(id)) > 0);

    now = new Date(now.getTime() + 5 * DAY + 1_000); // old ended 10 days and 1 s ago, recent 5 days ago
    const purged = await f.workflow.service.purgeHistory();
    assert.equal(purged.instances, 1);
    assert.equal(await historyCount(old.id), 0, 'the old history is gone');
    assert.ok((await historyCount(recent.id)) > 0, 'a recent finish keeps its history');
    assert.ok((await historyCount(running.id)) > 0, 'a running instance keeps its history');
    const detail = await f.instance(old.id);
    assert.equal(detail.state, 'completed', 'the instance row itself stays readable');

    now = new Date(now.getTime() + 5 * DAY);
    const later = await f.workflow.service.purgeHistory();
    assert.equal(later.instances, 1);
    assert.equal(await historyCount(recent.id), 0);
    assert.ok((await historyCount(running.id)) > 0);
  });

  test('completed batches that finished more than N days ago are deleted with their items', async () => {
    const pool = f.workflow.database.pool;
    const day = (n: number) => new Date(now.getTime() - n * DAY);
    const { rows } = await pool.query<{ id: string; label: string }>(
      `INSERT INTO batches (id, org_id, type, state, total, created_at, finished_at)
       VALUES (gen_random_uuid(), $1, 'cancel', 'completed', 1, $2, $2),
              (gen_random_uuid(), $1, 'cancel', 'completed', 1, $3, $3),
              (gen_random_uuid(), $1, 'cancel', 'running', 1, $2, NULL)
       RETURNING id, CASE WHEN state = 'running' THEN 'running' WHEN finished_at = $2 THEN 'old' ELSE 'recent' END AS label`,
      [f.orgId, day(11), day(3)],
    );
    const running = await f.start('escalate');
    for (const row of rows)
      await pool.query(`INSERT INTO batch_items (batch_id, instance_id, state) VALUES ($1, $2, 'done')`, [
        row.id,
        running.id,
      ]);
    const purged = await f.workflow.service.purgeHistory();
    assert.equal(purged.finishedBatches, 1);
    const left = await pool.query<{ id: string }>('SELECT id FROM batches WHERE id = ANY($1)', [
      rows.map((row) => row.id),
    ]);
    const labels = rows.filter((row) => left.rows.some((l) => l.id === row.id)).map((row) => row.label);
    assert.deepEqual(labels.sort(), ['recent', 'running']);
    const items = await pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM batch_items WHERE batch_id = ANY($1)',
      [rows.map((row) => row.id)],
    );
    assert.equal(items.rows[0]?.n, 2, "the old batch's items went with it");
  });
  test("camunda:historyTimeToLive is the version's retention; PATCH …/history-time-to-live changes it", async () => {
    const xml = (await fixtureXml('scripts-only.bpmn'))
      .replaceAll('pricing', 'pricing-short')
      .replace(
        '<bpmn:process id="pricing-short"',
        '<bpmn:process id="pricing-short" camunda:historyTimeToLive="P1D"',
      );
    const deployed = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/deployments',
      token: f.tokens.developer,
      body: { org_id: f.orgId, process_group_id: f.groupId, xml },
    });
    assert.equal(deployed.statusCode, 201, deployed.body);
    const short = deployed.json() as { id: string; history_time_to_live: number | null };
    assert.equal(short.history_time_to_live, 1);
    const listed = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/deployments?org_id=${f.orgId}&process_key=pricing`,
        token: f.tokens.reader,
      })
    ).json() as { id: string; history_time_to_live: number | null }[];
    const pricing = listed[0];
    assert.ok(pricing !== undefined);
    assert.equal(pricing.history_time_to_live, null, 'a process without the attribute has none');

    const shortLived = await f.start('pricing-short', { price: 1, quantity: 2 });
    const defaultLived = await f.start('pricing', { price: 1, quantity: 2 });
    now = new Date(now.getTime() + DAY + 1_000);
    await f.workflow.service.purgeHistory();
    assert.equal(await historyCount(shortLived.id), 0, 'ended more than its 1 day ago');
    assert.ok((await historyCount(defaultLived.id)) > 0, 'the global 10 days still hold for the other');

    const patch = (id: string, body: unknown, token = f.tokens.developer) =>
      f.workflow.request({
        method: 'PATCH',
        url: `/api/v1/deployments/${id}/history-time-to-live`,
        token,
        body,
      });
    assert.equal((await patch(pricing.id, { history_time_to_live: 1 }, f.tokens.operator)).statusCode, 403);
    assert.equal((await patch(pricing.id, { history_time_to_live: -1 })).statusCode, 400);
    assert.equal((await patch(pricing.id, { history_time_to_live: 1.5 })).statusCode, 400);
    assert.equal((await patch(pricing.id, {})).statusCode, 400);
    assert.equal(
      (await patch('00000000-0000-4000-8000-000000000000', { history_time_to_live: 1 })).statusCode,
      404,
    );
    const changed = await patch(pricing.id, { history_time_to_live: 1 });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal((changed.json() as { history_time_to_live: number }).history_time_to_live, 1);
    await f.workflow.service.purgeHistory();
    assert.equal(await historyCount(defaultLived.id), 0, 'the new time to live applies to ended instances');

    const cleared = await patch(short.id, { history_time_to_live: null });
    assert.equal((cleared.json() as { history_time_to_live: null }).history_time_to_live, null);
  });
});

describe('instance retention in the service (WORKFLOW_INSTANCE_RETENTION_DAYS)', () => {
  let f: EngineFixture;
  let now = new Date('2026-11-01T10:00:00Z');
  const DAY = 86_400_000;
  before(async () => {
    f = await createEngineFixture(
      {
        WORKFLOW_JWT_TTL_SECONDS: String(100 * 86_400),
        WORKFLOW_HISTORY_RETENTION_DAYS: '5',
        WORKFLOW_INSTANCE_RETENTION_DAYS: '10',
      },
      { now: () => now },
    );
    assert.equal((await f.deploy('call-activities.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  const completeTask = async (instanceId: string) => {
    const tasks = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/tasks?org_id=${f.orgId}&process_instance_id=${instanceId}`,
        token: f.tokens.reader,
      })
    ).json() as { id: string }[];
    const done = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/tasks/${tasks[0]?.id}/complete`,
      token: f.tokens.operator,
      body: { variables: { receipt: 'R-1' } },
    });
    assert.equal(done.statusCode, 204, done.body);
  };
  const status = async (id: string) =>
    (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/process-instances/${id}`,
        token: f.tokens.reader,
      })
    ).statusCode;

  test('a called instance stays while its parent runs; both go once the parent has finished long enough', async () => {
    const parent = await f.start('order', { amount: 3 });
    const { rows } = await f.workflow.database.pool.query<{ id: string }>(
      'SELECT id FROM process_instances WHERE parent_instance_id = $1',
      [parent.id],
    );
    const child = rows[0]?.id;
    assert.ok(child);
    await completeTask(child); // the child ends; the parent waits at its user task 'ship'
    assert.equal((await f.instance(child)).state, 'completed');

    now = new Date(now.getTime() + 11 * DAY);
    const first = await f.workflow.service.purgeHistory();
    assert.equal(first.deletedInstances, 0);
    assert.equal(await status(child), 200, 'its parent still runs');
    assert.equal(await status(parent.id), 200);

    await completeTask(parent.id);
    assert.equal((await f.instance(parent.id)).state, 'completed');
    now = new Date(now.getTime() + 11 * DAY);
    const second = await f.workflow.service.purgeHistory();
    assert.equal(second.deletedInstances, 2);
    assert.equal(await status(parent.id), 404, 'the instance is gone, not only its history');
    assert.equal(await status(child), 404);
  });
});
