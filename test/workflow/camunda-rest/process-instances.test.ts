import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { basic, createCamundaFixture, type CamundaFixture } from './camunda-fixture.js';

interface Instance {
  id: string;
  definitionId: string;
  businessKey: string | null;
  ended: boolean;
  suspended: boolean;
  tenantId: string;
}

interface HistoricInstance {
  id: string;
  businessKey: string | null;
  processDefinitionKey: string;
  processDefinitionName: string;
  processDefinitionVersion: number;
  startTime: string;
  endTime: string | null;
  durationInMillis: number | null;
  state: string;
  tenantId: string;
  superProcessInstanceId: string | null;
  rootProcessInstanceId: string | null;
}

const camundaDate = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/;

describe('/engine-rest/process-instance and /history/process-instance', () => {
  let fixture: CamundaFixture;
  let operator: string;
  let reader: string;
  let small: string;
  let large: string;
  let other: string;
  let inBeta: string;
  before(async () => {
    fixture = await createCamundaFixture();
    const userId = await fixture.workflow.createUser('operator@example.com', 'operator password');
    await fixture.workflow.request({
      method: 'PUT',
      url: `/api/v1/orgs/${fixture.orgs.acme}/members/${userId}`,
      token: fixture.admin,
      body: { roles: ['Operator'] },
    });
    operator = basic('operator@example.com', 'operator password');
    reader = basic(fixture.users.reader.email, fixture.users.reader.password);
    small = await fixture.start({ amount: 5, tier: 'basic' }, { businessKey: 'order-1' });
    large = await fixture.start({ amount: 500, tier: 'gold' }, { businessKey: 'order-2' });
    other = await fixture.start({ amount: 50 }, { businessKey: 'invoice-1' });
    inBeta = await fixture.start({ amount: 1 }, { org: 'beta', businessKey: 'order-beta' });
  });
  after(() => fixture.close());

  const call = (method: string, path: string, authorization = operator, body?: unknown) =>
    fixture.camunda({ method, url: `/engine-rest${path}`, authorization, body });
  const ids = async (path: string, authorization = operator) => {
    const response = await call('GET', path, authorization);
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { id: string }[]).map((item) => item.id).sort();
  };
  const assertCamundaError = (
    response: { statusCode: number; json(): unknown },
    status: number,
    type: string,
    message?: RegExp,
  ) => {
    assert.equal(response.statusCode, status, JSON.stringify(response.json()));
    const body = response.json() as { type: string; message: string };
    assert.equal(body.type, type);
    if (message) assert.match(body.message, message);
  };

  test('lists running instances with filters, variables filters and paging; other orgs are invisible', async () => {
    assert.deepEqual(await ids('/process-instance'), [small, large, other].sort());
    assert.deepEqual(await ids('/process-instance?businessKeyLike=order%25'), [small, large].sort());
    assert.deepEqual(await ids('/process-instance?businessKey=invoice-1'), [other]);
    assert.deepEqual(await ids(`/process-instance?processInstanceIds=${small},${inBeta}`), [small]);
    assert.deepEqual(
      await ids('/process-instance?processDefinitionKey=charge-card&active=true'),
      [small, large, other].sort(),
    );
    assert.deepEqual(await ids('/process-instance?suspended=true'), []);
    assert.deepEqual(await ids('/process-instance?withIncident=true'), []);
    assert.deepEqual(await ids('/process-instance?variables=amount_gt_10'), [large, other].sort());
    assert.deepEqual(await ids('/process-instance?variables=amount_gteq_50,amount_lt_100'), [other]);
    assert.deepEqual(await ids('/process-instance?variables=tier_eq_gold'), [large]);
    assert.deepEqual(await ids('/process-instance?variables=tier_like_b%25'), [small]);
    assert.deepEqual(await ids('/process-instance?variables=tier_neq_gold'), [small]);
    const page = await call(
      'GET',
      '/process-instance?sortBy=businessKey&sortOrder=asc&firstResult=1&maxResults=1',
    );
    assert.deepEqual(
      (page.json() as Instance[]).map((instance) => instance.businessKey),
      ['order-1'],
    );
    assert.deepEqual((await call('GET', '/process-instance/count?businessKeyLike=order%25')).json(), {
      count: 2,
    });
    assert.deepEqual(await ids('/process-instance', reader), [small, large, other].sort());
    assertCamundaError(
      await call('GET', '/process-instance?variables=amount_between_1'),
      400,
      'InvalidRequestException',
      /between/,
    );
    assertCamundaError(
      await call('GET', '/process-instance?activityIdIn=x'),
      400,
      'InvalidRequestException',
      /activityIdIn/,
    );
    assertCamundaError(
      await call('GET', '/process-instance?tenantIdIn=beta'),
      400,
      'InvalidRequestException',
      /Unknown tenant/,
    );
  });

  test('gets one instance; an instance of another org is not found', async () => {
    const response = await call('GET', `/process-instance/${small}`);
    assert.equal(response.statusCode, 200);
    const instance = response.json() as Instance;
    assert.equal(instance.businessKey, 'order-1');
    assert.equal(instance.tenantId, 'acme');
    assert.equal(instance.ended, false);
    assertCamundaError(
      await call('GET', `/process-instance/${inBeta}`),
      404,
      'InvalidRequestException',
      /does not exist/,
    );
    assertCamundaError(await call('GET', '/process-instance/nope'), 404, 'InvalidRequestException');
  });

  test('reads and sets variables; deletions are refused', async () => {
    const all = await call('GET', `/process-instance/${small}/variables?deserializeValues=false`);
    assert.deepEqual(all.json(), {
      amount: { type: 'Integer', value: 5, valueInfo: {} },
      tier: { type: 'String', value: 'basic', valueInfo: {} },
    });
    const one = await call('GET', `/process-instance/${small}/variables/tier`);
    assert.deepEqual(one.json(), { type: 'String', value: 'basic', valueInfo: {} });
    assertCamundaError(
      await call('GET', `/process-instance/${small}/variables/missing`),
      404,
      'InvalidRequestException',
    );
    const put = await call('PUT', `/process-instance/${small}/variables/tier`, operator, {
      value: 'silver',
      type: 'String',
    });
    assert.equal(put.statusCode, 204, put.body);
    const modified = await call('POST', `/process-instance/${small}/variables`, operator, {
      modifications: { amount: { value: 7, type: 'Long' }, note: { value: '{"a":1}', type: 'Json' } },
    });
    assert.equal(modified.statusCode, 204, modified.body);
    assert.deepEqual((await fixture.instance(small)).variables, {
      amount: 7,
      tier: 'silver',
      note: { a: 1 },
    });
    const deletion = await call('POST', `/process-instance/${small}/variables`, operator, {
      deletions: ['note'],
    });
    assertCamundaError(deletion, 400, 'InvalidRequestException', /Deleting/);
    assertCamundaError(
      await call('DELETE', `/process-instance/${small}/variables/note`),
      400,
      'InvalidRequestException',
      /Deleting/,
    );
    const denied = await call('PUT', `/process-instance/${small}/variables/tier`, reader, {
      value: 'x',
      type: 'String',
    });
    assertCamundaError(denied, 403, 'AuthorizationException');
    const badType = await call('PUT', `/process-instance/${small}/variables/tier`, operator, {
      value: 'x',
      type: 'Bytes',
    });
    assertCamundaError(badType, 400, 'InvalidRequestException', /Bytes/);
  });

  test('DELETE cancels; a Reader may not; failIfNotExists=false tolerates an unknown id', async () => {
    assertCamundaError(
      await call('DELETE', `/process-instance/${other}`, reader),
      403,
      'AuthorizationException',
    );
    const deleted = await call(
      'DELETE',
      `/process-instance/${other}?skipCustomListeners=true&skipIoMappings=true`,
    );
    assert.equal(deleted.statusCode, 204, deleted.body);
    assert.equal((await fixture.instance(other)).state, 'cancelled');
    assertCamundaError(await call('DELETE', `/process-instance/${other}`), 404, 'InvalidRequestException');
    const tolerated = await call('DELETE', `/process-instance/${other}?failIfNotExists=false`);
    assert.equal(tolerated.statusCode, 204);
    assertCamundaError(await call('DELETE', `/process-instance/${inBeta}`), 404, 'InvalidRequestException');
  });

  test('history lists running and ended instances with states, dates and filters', async () => {
    const response = await call('GET', '/history/process-instance?sortBy=startTime&sortOrder=asc');
    assert.equal(response.statusCode, 200, response.body);
    const rows = response.json() as HistoricInstance[];
    assert.deepEqual(
      rows.map((row) => row.businessKey),
      ['order-1', 'order-2', 'invoice-1'],
    );
    const cancelled = rows.find((row) => row.id === other);
    assert.equal(cancelled?.state, 'EXTERNALLY_TERMINATED');
    assert.match(cancelled?.endTime ?? '', camundaDate);
    assert.equal(typeof cancelled?.durationInMillis, 'number');
    const running = rows.find((row) => row.id === small);
    assert.equal(running?.state, 'ACTIVE');
    assert.match(running?.startTime ?? '', camundaDate);
    assert.equal(running?.endTime, null);
    assert.equal(running?.durationInMillis, null);
    assert.equal(running?.processDefinitionKey, 'charge-card');
    assert.equal(running?.processDefinitionName, 'Charge card');
    assert.equal(running?.processDefinitionVersion, 1);
    assert.equal(running?.rootProcessInstanceId, small);
    assert.equal(running?.tenantId, 'acme');
    assert.deepEqual(await ids('/history/process-instance?finished=true'), [other]);
    assert.deepEqual(await ids('/history/process-instance?unfinished=true'), [small, large].sort());
    assert.deepEqual(await ids('/history/process-instance?state=EXTERNALLY_TERMINATED'), [other]);
    assert.deepEqual(await ids('/history/process-instance?processInstanceBusinessKey=order-2'), [large]);
    assert.deepEqual(
      await ids('/history/process-instance?startedAfter=2000-01-01T00:00:00.000%2B0000'),
      [small, large, other].sort(),
    );
    assert.deepEqual(await ids('/history/process-instance?startedBefore=2000-01-01T00:00:00.000%2B0000'), []);
    assert.deepEqual(
      (await call('GET', '/history/process-instance/count?processDefinitionKey=charge-card')).json(),
      { count: 3 },
    );
    assertCamundaError(
      await call('GET', '/history/process-instance?startedAfter=yesterday'),
      400,
      'InvalidRequestException',
      /startedAfter/,
    );
    assertCamundaError(
      await call('GET', '/history/process-instance?finished=true&unfinished=true'),
      400,
      'InvalidRequestException',
    );
    assertCamundaError(
      await call('GET', '/history/process-instance?state=GONE'),
      400,
      'InvalidRequestException',
      /state/,
    );
  });
});
