import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, fixtureXml, type EngineFixture } from './engine-fixture.js';

describe('call activities', () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture();
    assert.equal((await f.deploy('call-activities.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  const childrenOf = async (parentId: string) =>
    (
      await f.workflow.database.pool.query<{ id: string; state: string; definition_id: string }>(
        'SELECT id, state, definition_id FROM process_instances WHERE parent_instance_id = $1 ORDER BY counter',
        [parentId],
      )
    ).rows;
  const completeTask = async (instanceId: string, variables: Record<string, unknown>) => {
    const tasks = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/tasks?org_id=${f.orgId}&process_instance_id=${instanceId}`,
        token: f.tokens.reader,
      })
    ).json() as { id: string }[];
    assert.equal(tasks.length, 1);
    const done = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/tasks/${tasks[0]?.id}/complete`,
      token: f.tokens.operator,
      body: { variables },
    });
    assert.equal(done.statusCode, 204, done.body);
  };
  const history = async (id: string) =>
    (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/process-instances/${id}/history`,
        token: f.tokens.reader,
      })
    ).json() as { kind: string; element_id: string }[];

  test('the parent waits; the child gets the input mapping and its completion applies the output mapping', async () => {
    const parent = await f.start('order', { amount: 42, secret: 'parent only' });
    assert.equal(parent.state, 'running');
    assert.deepEqual((await f.instance(parent.id)).active_element_ids, ['charge']);
    const [child] = await childrenOf(parent.id);
    assert.ok(child, 'the call activity started a child');
    const childDetail = await f.instance(child.id);
    assert.equal(childDetail.process_key, 'charge-card');
    assert.equal(childDetail.parent_instance_id, parent.id, 'the child shows its parent');
    assert.deepEqual(childDetail.variables, { total: 42 }, 'only the mapped input reaches the child');
    assert.equal((await f.instance(parent.id)).parent_instance_id, null);

    await completeTask(child.id, { receipt: 'R-1', internal: 'child only' });
    assert.equal((await f.instance(child.id)).state, 'completed');
    const after = (await f.instance(parent.id)) as unknown as {
      active_element_ids: string[];
      variables: Record<string, unknown>;
    };
    assert.deepEqual(after.active_element_ids, ['ship'], 'the parent moved on');
    assert.equal(after.variables.receiptId, 'R-1');
    assert.equal(after.variables.internal, undefined, 'only the mapped output comes back');
  });

  test('an error end event the child does not catch is caught by an error boundary on the call activity', async () => {
    const parent = await f.start('order', { amount: 5 });
    const [child] = await childrenOf(parent.id);
    assert.ok(child);
    await completeTask(child.id, { declined: true });
    assert.equal((await f.instance(child.id)).state, 'terminated', 'the child ended with the error');
    const detail = await f.instance(parent.id);
    assert.equal(detail.state, 'completed');
    assert.ok((await history(parent.id)).some((entry) => entry.element_id === 'declined'));
    const incidents = await f.workflow.database.pool.query(
      'SELECT 1 FROM incidents WHERE process_instance_id = ANY($1)',
      [[parent.id, child.id]],
    );
    assert.equal(incidents.rowCount, 0, 'no incident anywhere');
  });

  test('cancelling the parent cancels the child', async () => {
    const parent = await f.start('order', { amount: 7 });
    const [child] = await childrenOf(parent.id);
    assert.ok(child);
    const cancelled = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/process-instances/${parent.id}/cancel`,
      token: f.tokens.operator,
    });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    assert.equal((await f.instance(child.id)).state, 'cancelled');
    const open = await f.workflow.database.pool.query(
      'SELECT 1 FROM user_tasks WHERE process_instance_id = $1',
      [child.id],
    );
    assert.equal(open.rowCount, 0);
  });

  test('cancelling the child alone raises an incident on the call activity', async () => {
    const parent = await f.start('order', { amount: 8 });
    const [child] = await childrenOf(parent.id);
    assert.ok(child);
    await f.workflow.request({
      method: 'POST',
      url: `/api/v1/process-instances/${child.id}/cancel`,
      token: f.tokens.operator,
    });
    const detail = await f.instance(parent.id);
    assert.equal(detail.state, 'incident');
    assert.match(JSON.stringify(detail.incidents), /was cancelled/);
  });

  test('a pinned version is started even when a newer one exists; a missing process is an incident', async () => {
    const v1 = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/deployments?org_id=${f.orgId}&process_key=charge-card`,
        token: f.tokens.reader,
      })
    ).json() as { id: string; version: number }[];
    const v2 = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/deployments',
      token: f.tokens.developer,
      body: {
        org_id: f.orgId,
        process_group_id: f.groupId,
        xml: (await fixtureXml('call-activities.bpmn')).replace('id="pay"', 'id="pay" name="Pay"'),
      },
    });
    assert.equal(v2.statusCode, 201);
    const pinned = await f.start('pinned');
    const [child] = await childrenOf(pinned.id);
    assert.equal(child?.definition_id, v1.find((d) => d.version === 1)?.id);
    const latest = await f.start('order', { amount: 1 });
    const [latestChild] = await childrenOf(latest.id);
    const latestVersion = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/deployments?org_id=${f.orgId}&process_key=charge-card`,
        token: f.tokens.reader,
      })
    ).json() as { id: string; version: number }[];
    assert.equal(latestChild?.definition_id, latestVersion.find((d) => d.version === 2)?.id);

    const missing = await f.start('missing');
    assert.equal(missing.state, 'incident');
    assert.match(
      JSON.stringify((await f.instance(missing.id)).incidents),
      /no enabled process 'no-such-process'/,
    );
  });
});
