import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertCamundaError, createRuntimeFixture, type RuntimeFixture } from './runtime-fixture.js';

interface CorrelationResult {
  resultType: string;
  execution: { id: string; processInstanceId: string; ended: boolean; tenantId: string } | null;
  processInstance: {
    links: unknown[];
    id: string;
    definitionId: string;
    businessKey: string | null;
    caseInstanceId: null;
    ended: boolean;
    suspended: boolean;
    tenantId: string;
  } | null;
  variables?: Record<string, { type: string; value: unknown }>;
}

describe('/engine-rest/message and /engine-rest/signal', () => {
  let fixture: RuntimeFixture;
  before(async () => {
    fixture = await createRuntimeFixture();
  });
  after(() => fixture.close());

  const message = (body: unknown, token = fixture.operator.jwt) =>
    fixture.engineRest('POST', '/message', token, body);
  const signal = (body: unknown, token = fixture.operator.jwt) =>
    fixture.engineRest('POST', '/signal', token, body);
  const at = async (instanceId: string) => (await fixture.instance(instanceId)).active_element_ids;

  test('a message with a business key completes the one waiting instance with it, with its variables', async () => {
    const first = await fixture.startProcess('await-payment', {}, { businessKey: 'bk-1' });
    const second = await fixture.startProcess('await-payment', {}, { businessKey: 'bk-2' });
    const response = await message({
      messageName: 'PaymentReceived',
      businessKey: 'bk-1',
      processVariables: { paid: { value: '10', type: 'Integer' } },
      processVariablesLocal: { channel: { value: 'card', type: 'String' } },
    });
    assert.equal(response.statusCode, 204, response.body);
    assert.deepEqual(await at(first), ['ship']);
    const instance = await fixture.instance(first);
    assert.equal(instance.variables.paid, 10);
    assert.equal(instance.variables.channel, 'card');
    assert.deepEqual(await at(second), ['payment']);
  });

  test("correlationKeys match the instance's variables; resultEnabled answers the execution", async () => {
    const a = await fixture.startProcess('await-payment', { orderId: 'A-ck', count: 1 });
    const b = await fixture.startProcess('await-payment', { orderId: 'B-ck', count: 1 });
    const response = await message({
      messageName: 'PaymentReceived',
      correlationKeys: { orderId: { value: 'B-ck', type: 'String' }, count: { value: 1, type: 'Long' } },
      processVariables: { paid: { value: true, type: 'Boolean' } },
      resultEnabled: true,
      variablesInResultEnabled: true,
    });
    assert.equal(response.statusCode, 200, response.body);
    const [result, ...rest] = response.json() as CorrelationResult[];
    assert.equal(rest.length, 0);
    assert.equal(result?.resultType, 'Execution');
    assert.equal(result.processInstance, null);
    assert.equal(result.execution?.processInstanceId, b);
    assert.equal(result.execution.tenantId, 'acme');
    assert.equal(result.execution.ended, false);
    assert.deepEqual(result.variables?.paid, { type: 'Boolean', value: true, valueInfo: {} });
    assert.deepEqual(result.variables.orderId, { type: 'String', value: 'B-ck', valueInfo: {} });
    assert.deepEqual(await at(b), ['ship']);
    assert.deepEqual(await at(a), ['payment']);
    // Without variablesInResultEnabled the result has no variables.
    const plain = await message({
      messageName: 'PaymentReceived',
      correlationKeys: { orderId: { value: 'A-ck', type: 'String' } },
      resultEnabled: true,
    });
    const [only] = plain.json() as CorrelationResult[];
    assert.equal(only?.execution?.processInstanceId, a);
    assert.equal('variables' in only, false);
  });

  test('a message that matches several waits needs all; with all it completes each', async () => {
    const one = await fixture.startProcess('await-payment', { batch: 'all-1' });
    const two = await fixture.startProcess('await-payment', { batch: 'all-1' });
    const keys = { batch: { value: 'all-1', type: 'String' } };
    assertCamundaError(
      await message({ messageName: 'PaymentReceived', correlationKeys: keys }),
      400,
      'RestException',
      /^Cannot correlate message 'PaymentReceived': 2 executions match/,
    );
    assert.deepEqual(await at(one), ['payment']);
    const response = await message({
      messageName: 'PaymentReceived',
      correlationKeys: keys,
      all: true,
      resultEnabled: true,
    });
    assert.equal(response.statusCode, 200, response.body);
    const results = response.json() as CorrelationResult[];
    assert.deepEqual(results.map((r) => r.execution?.processInstanceId).sort(), [one, two].sort());
    assert.deepEqual(await at(one), ['ship']);
    assert.deepEqual(await at(two), ['ship']);
  });

  test('processInstanceId names the instance to correlate to', async () => {
    const target = await fixture.startProcess('await-payment', {});
    const other = await fixture.startProcess('await-payment', {});
    const response = await message({ messageName: 'PaymentReceived', processInstanceId: target });
    assert.equal(response.statusCode, 204, response.body);
    assert.deepEqual(await at(target), ['ship']);
    assert.deepEqual(await at(other), ['payment']);
    await message({ messageName: 'PaymentReceived', processInstanceId: other });
  });

  test('a message start event starts an instance with the business key and variables', async () => {
    const response = await message({
      messageName: 'OrderPlaced',
      businessKey: 'new-order-1',
      processVariables: { item: { value: '{"sku":"X1"}', type: 'Json' } },
      resultEnabled: true,
    });
    assert.equal(response.statusCode, 200, response.body);
    const [result] = response.json() as CorrelationResult[];
    assert.equal(result?.resultType, 'ProcessDefinition');
    assert.equal(result.execution, null);
    const started = result.processInstance;
    assert.ok(started);
    assert.equal(started.businessKey, 'new-order-1');
    assert.equal(started.tenantId, 'acme');
    assert.equal(started.ended, false);
    assert.equal(started.suspended, false);
    assert.deepEqual(started.links, []);
    assert.equal(started.caseInstanceId, null);
    assert.match(started.definitionId, /^[0-9a-f-]{36}$/);
    const instance = await fixture.instance(started.id);
    assert.deepEqual(instance.active_element_ids, ['handle']);
    assert.deepEqual(instance.variables.item, { sku: 'X1' });
  });

  test('a message that matches nothing is a 400 RestException, as Camunda answers', async () => {
    assertCamundaError(
      await message({ messageName: 'NoSuchMessage' }),
      400,
      'RestException',
      /^Cannot correlate message 'NoSuchMessage': No process definition or execution matches the parameters$/,
    );
    assertCamundaError(
      await message({ messageName: 'PaymentReceived', businessKey: 'no-such-key' }),
      400,
      'RestException',
      /No process definition or execution matches/,
    );
    assertCamundaError(
      await message({ messageName: 'PaymentReceived', processInstanceId: 'not-an-id' }),
      400,
      'RestException',
    );
    assertCamundaError(
      await message({ messageName: 'OrderPlaced', withoutTenantId: true }),
      400,
      'RestException',
    );
    // With all, matching nothing is no error (Camunda's correlateAll).
    const all = await message({ messageName: 'NoSuchMessage', all: true, resultEnabled: true });
    assert.equal(all.statusCode, 200, all.body);
    assert.deepEqual(all.json(), []);
  });

  test('messages need the Operator role in the tenant', async () => {
    const waiting = await fixture.startProcess('await-payment', {}, { businessKey: 'auth-1' });
    assertCamundaError(
      await message({ messageName: 'PaymentReceived', businessKey: 'auth-1' }, fixture.users.worker.jwt),
      403,
      'AuthorizationException',
    );
    assertCamundaError(
      await message({ messageName: 'PaymentReceived', tenantId: 'beta' }),
      400,
      'InvalidRequestException',
      /Unknown tenant id 'beta'/,
    );
    assertCamundaError(
      await message({ messageName: 'PaymentReceived', businessKey: 'auth-1' }, fixture.admin),
      400,
      'InvalidRequestException',
      /pass tenantId/,
    );
    const asAdmin = await message(
      { messageName: 'PaymentReceived', businessKey: 'auth-1', tenantId: 'acme' },
      fixture.admin,
    );
    assert.equal(asAdmin.statusCode, 204, asAdmin.body);
    assert.deepEqual(await at(waiting), ['ship']);
  });

  test('bad message input answers Camunda-shaped 400s', async () => {
    assertCamundaError(await message({}), 400, 'InvalidRequestException', /No message name/);
    assertCamundaError(
      await message({ messageName: 'PaymentReceived', tenantId: 'acme', withoutTenantId: true }),
      400,
      'InvalidRequestException',
      /withoutTenantId/,
    );
    assertCamundaError(
      await message({
        messageName: 'PaymentReceived',
        localCorrelationKeys: { a: { value: 1, type: 'Integer' } },
      }),
      400,
      'InvalidRequestException',
      /localCorrelationKeys are not supported/,
    );
    assertCamundaError(
      await message({
        messageName: 'PaymentReceived',
        processVariables: { x: { value: 'y', type: 'Bytes' } },
      }),
      400,
      'InvalidRequestException',
      /'x'/,
    );
    assertCamundaError(
      await message({
        messageName: 'PaymentReceived',
        correlationKeys: { x: { value: 'nope', type: 'Integer' } },
      }),
      400,
      'InvalidRequestException',
      /'x'/,
    );
    assertCamundaError(await message({ messageName: 42 }), 400, 'InvalidRequestException');
  });

  test('a signal reaches every waiting instance of the tenant with its variables', async () => {
    const one = await fixture.startProcess('wait-signal', {});
    const two = await fixture.startProcess('wait-signal', {});
    const beta = await fixture.startProcess('wait-signal', {}, { org: 'beta' });
    const response = await signal({ name: 'Go', variables: { level: { value: 3, type: 'Short' } } });
    assert.equal(response.statusCode, 204, response.body);
    assert.deepEqual(await at(one), ['after-signal']);
    assert.deepEqual(await at(two), ['after-signal']);
    assert.equal((await fixture.instance(one)).variables.level, 3);
    assert.deepEqual(await at(beta), ['go']);
    const toBeta = await signal({ name: 'Go', tenantId: 'beta' }, fixture.admin);
    assert.equal(toBeta.statusCode, 204, toBeta.body);
    assert.deepEqual(await at(beta), ['after-signal']);
    // Nobody waiting is no error.
    assert.equal((await signal({ name: 'NobodyWaits' })).statusCode, 204);
  });

  test('signal refusals: executionId, roles, bad input', async () => {
    assertCamundaError(
      await signal({ name: 'Go', executionId: 'x' }),
      400,
      'InvalidRequestException',
      /executionId is not supported/,
    );
    assertCamundaError(await signal({ name: 'Go' }, fixture.users.worker.jwt), 403, 'AuthorizationException');
    assertCamundaError(await signal({}), 400, 'InvalidRequestException');
    assertCamundaError(
      await signal({ name: 'Go', variables: { v: { value: 1, type: 'File' } } }),
      400,
      'InvalidRequestException',
    );
  });
});
