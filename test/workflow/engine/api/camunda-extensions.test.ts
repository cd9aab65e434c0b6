import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from './engine-fixture.js';
import { correlate } from './event-helpers.js';

// camunda:initiator, camunda:in businessKey and camunda:list / camunda:map parameters
// (fixtures/camunda-extensions.bpmn).
describe('Camunda 7 extensions in running instances', () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture({ WORKFLOW_JWT_TTL_SECONDS: '86400' });
    const deployed = await f.deploy('camunda-extensions.bpmn');
    assert.equal(deployed.statusCode, 201, deployed.body);
  });
  after(() => f.close());

  const start = async (
    processKey: string,
    body: { business_key?: string; variables?: Record<string, unknown> } = {},
    token = f.tokens.operator,
  ) => {
    const response = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/process-instances',
      token,
      body: { org_id: f.orgId, process_key: processKey, ...body },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json() as { id: string; variables: Record<string, unknown> };
  };
  const assigneeOf = async (instanceId: string) => {
    const response = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/tasks?org_id=${f.orgId}&process_instance_id=${instanceId}`,
      token: f.tokens.reader,
    });
    const [task] = response.json() as { assignee: string | null }[];
    return task?.assignee;
  };

  test('camunda:initiator holds the email of the user who starts the instance, whatever the variables say', async () => {
    const instance = await start('initiated', { variables: { starter: 'someone-else@example.com' } });
    assert.equal(instance.variables.starter, 'operator@example.com');
    assert.equal(await assigneeOf(instance.id), 'operator@example.com', '${starter} assigns the task');
  });

  test("a start through an API key sets the initiator to the key's user's email", async () => {
    const created = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/api-keys',
      token: f.tokens.operator,
      body: { name: 'starter' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const key = (created.json() as { plaintext_key: string }).plaintext_key;
    const instance = await start('initiated', {}, key);
    assert.equal(instance.variables.starter, 'operator@example.com');
  });

  test('a message start has no user: the initiator variable is null', async () => {
    const answer = await correlate(f, { message_name: 'kick-initiated' });
    assert.equal(answer.started.length, 1);
    const instance = await f.instance(answer.started[0] ?? '');
    assert.equal((instance.variables as Record<string, unknown>).starter, null);
    assert.ok(Object.hasOwn(instance.variables as object, 'starter'));
  });

  test('camunda:in businessKey gives the called instance the evaluated business key', async () => {
    const caller = await start('caller', { business_key: 'B-7', variables: { orderId: 42 } });
    const response = await f.workflow.request({
      method: 'GET',
      url: `/api/v1/process-instances?org_id=${f.orgId}&process_key=called`,
      token: f.tokens.reader,
    });
    assert.equal(response.statusCode, 200, response.body);
    const children = (
      response.json() as { id: string; business_key: string | null; parent_instance_id?: string | null }[]
    ).filter((child) => child.business_key?.startsWith('B-7'));
    assert.equal(children.length, 1);
    assert.equal(children[0]?.business_key, 'B-7/42');
    const child = await f.instance(children[0]?.id ?? '');
    assert.equal((child.variables as Record<string, unknown>).orderId, 42);
    assert.deepEqual((await f.instance(caller.id)).active_element_ids, ['call']);
  });

  test('a business key expression that fails is an incident on the call activity', async () => {
    const caller = await start('caller', { business_key: 'B-8' });
    const instance = await f.instance(caller.id);
    const incidents = instance.incidents as { activity_id: string; message: string }[];
    assert.equal(incidents.length, 1);
    assert.equal(incidents[0]?.activity_id, 'call');
    assert.match(incidents[0]?.message ?? '', /business key: .*orderId/);
  });

  test('camunda:list and camunda:map parameters build lists and maps of constants, JUEL, FEEL and nested values', async () => {
    const instance = await start('structures', {
      business_key: 'S-1',
      variables: { favourite: 'green', amount: 21 },
    });
    assert.deepEqual(instance.variables.colors, ['red', 'green', null, 'BLUE', [42, 'inner']]);
    assert.deepEqual(instance.variables.order, {
      id: 'Order S-1',
      amount: 21,
      note: 'fixed text',
      tags: ['a', 'green'],
      nested: { large: true },
    });
  });

  test('an item that fails to evaluate is an incident naming the parameter, and nothing of it is set', async () => {
    const instance = await start('structures', { variables: { favourite: 'green', amount: 1 } });
    const detail = await f.instance(instance.id);
    const incidents = detail.incidents as { activity_id: string; message: string }[];
    assert.equal(incidents[0]?.activity_id, 'send');
    assert.match(incidents[0]?.message ?? '', /mapping 'broken': .*missing/);
    assert.equal(Object.hasOwn(detail.variables as object, 'broken'), false);
  });
});
