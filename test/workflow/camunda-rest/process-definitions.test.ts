import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { basic, createCamundaFixture, type CamundaFixture } from './camunda-fixture.js';
import { fixtureFile, modelerDeploymentRequest } from './modeler-deployment.js';

interface Definition {
  id: string;
  key: string;
  name: string;
  version: number;
  deploymentId: string;
  tenantId: string;
  suspended: boolean;
  resource: string;
}

interface StartedInstance {
  id: string;
  definitionId: string;
  businessKey: string | null;
  caseInstanceId: null;
  ended: boolean;
  suspended: boolean;
  tenantId: string;
  links: { rel: string; href: string }[];
  variables?: Record<string, { type: string; value: unknown }>;
}

describe('/engine-rest/process-definition', () => {
  let fixture: CamundaFixture;
  let operator: string;
  let reader: string;
  before(async () => {
    fixture = await createCamundaFixture();
    const email = 'operator@example.com';
    const userId = await fixture.workflow.createUser(email, 'operator password');
    for (const org of [fixture.orgs.acme, fixture.orgs.beta])
      await fixture.workflow.request({
        method: 'PUT',
        url: `/api/v1/orgs/${org}/members/${userId}`,
        token: fixture.admin,
        body: { roles: ['Operator', 'Developer'] },
      });
    operator = basic(email, 'operator password');
    reader = basic(fixture.users.reader.email, fixture.users.reader.password);
    // A second version of charge-card in acme, and review-order in acme only.
    const charge = await fixtureFile('charge.bpmn');
    const changed = { ...charge, contents: charge.contents.replace('Charge card"', 'Charge card v2"') };
    for (const file of [changed, await fixtureFile('review.bpmn')]) {
      const { payload, headers } = await modelerDeploymentRequest(file, { name: 'defs', tenantId: 'acme' });
      const response = await fixture.camunda({
        method: 'POST',
        url: '/engine-rest/deployment/create',
        body: payload,
        headers,
        authorization: operator,
      });
      assert.equal(response.statusCode, 200, response.body);
    }
  });
  after(() => fixture.close());

  const call = (method: string, path: string, authorization = operator, body?: unknown) =>
    fixture.camunda({ method, url: `/engine-rest${path}`, authorization, body });
  const list = async (query: string, authorization = operator) => {
    const response = await call('GET', `/process-definition${query}`, authorization);
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as Definition[];
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

  test('lists versions with filters, latestVersion, sorting and paging', async () => {
    const acme = await list('?tenantIdIn=acme&sortBy=version&sortOrder=desc');
    assert.deepEqual(
      acme.filter((definition) => definition.key === 'charge-card').map((definition) => definition.version),
      [2, 1],
    );
    const latest = await list('?key=charge-card&latestVersion=true');
    assert.deepEqual(
      latest.map((definition) => [definition.tenantId, definition.version, definition.name]).sort(),
      [
        ['acme', 2, 'Charge card v2'],
        ['beta', 1, 'Charge card'],
      ],
    );
    assert.deepEqual(
      (await list('?keyLike=review%25')).map((definition) => definition.key),
      ['review-order'],
    );
    assert.deepEqual(
      (await list('?nameLike=%25v2&version=2')).map((definition) => definition.name),
      ['Charge card v2'],
    );
    const [first] = await list('?sortBy=key&sortOrder=asc&maxResults=1');
    assert.equal(first?.key, 'charge-card');
    const second = await list('?sortBy=key&sortOrder=asc&firstResult=1&maxResults=1');
    assert.equal(second.length, 1);
    const count = await call('GET', '/process-definition/count?key=charge-card');
    assert.deepEqual(count.json(), { count: 3 });
    const byDeployment = await list(`?deploymentId=${first?.deploymentId ?? ''}`);
    assert.ok(byDeployment.some((definition) => definition.id === first?.id));
    assert.deepEqual(await list('?processDefinitionId=not-a-uuid'), []);
    assert.deepEqual(await list('?suspended=true'), []);
    assertCamundaError(
      await call('GET', '/process-definition?versionTag=1'),
      400,
      'InvalidRequestException',
      /versionTag/,
    );
    assertCamundaError(
      await call('GET', '/process-definition?sortBy=foo&sortOrder=asc'),
      400,
      'InvalidRequestException',
      /sortBy/,
    );
  });

  test('a Reader sees its org only; a Worker-only member sees nothing', async () => {
    const seen = await list('', reader);
    assert.ok(seen.length > 0 && seen.every((definition) => definition.tenantId === 'acme'));
    const worker = basic(fixture.users.worker.email, fixture.users.worker.password);
    assert.deepEqual(await list('', worker), []);
  });

  test('get by id, by key (the latest), by key and tenant, and the XML', async () => {
    const keyInBoth = await call('GET', '/process-definition/key/charge-card');
    assertCamundaError(keyInBoth, 400, 'InvalidRequestException', /several tenants/);
    const inAcme = await call('GET', '/process-definition/key/charge-card/tenant-id/acme');
    assert.equal(inAcme.statusCode, 200, inAcme.body);
    const definition = inAcme.json() as Definition;
    assert.equal(definition.version, 2);
    assert.equal(definition.resource, 'charge-card.bpmn');
    const byId = await call('GET', `/process-definition/${definition.id}`);
    assert.deepEqual(byId.json(), definition);
    const readerKey = await call('GET', '/process-definition/key/charge-card', reader);
    assert.equal((readerKey.json() as Definition).id, definition.id, 'a Reader of acme only sees acme’s');
    const xml = await call('GET', '/process-definition/key/review-order/xml');
    assert.equal(xml.statusCode, 200);
    const body = xml.json() as { id: string; bpmn20Xml: string };
    assert.match(body.bpmn20Xml, /<bpmn:process id="review-order"/);
    assertCamundaError(
      await call('GET', '/process-definition/key/nope'),
      404,
      'InvalidRequestException',
      /key: nope/,
    );
    assertCamundaError(await call('GET', '/process-definition/not-an-id'), 404, 'InvalidRequestException');
    assertCamundaError(
      await call('GET', '/process-definition/key/charge-card/tenant-id/nowhere'),
      404,
      'InvalidRequestException',
    );
  });

  test('starts by id, by key and by key in a tenant, with typed variables and variables in return', async () => {
    const started = await call('POST', '/process-definition/key/review-order/start', operator, {
      businessKey: 'order-7',
      variables: {
        amount: { value: '42', type: 'Integer' },
        due: { value: '2024-05-06T07:08:09.010+0200', type: 'Date' },
        order: { value: '{"lines":2}', type: 'Json' },
      },
      withVariablesInReturn: true,
    });
    assert.equal(started.statusCode, 200, started.body);
    const instance = started.json() as StartedInstance;
    assert.equal(instance.businessKey, 'order-7');
    assert.equal(instance.caseInstanceId, null);
    assert.equal(instance.ended, false);
    assert.equal(instance.suspended, false);
    assert.equal(instance.tenantId, 'acme');
    assert.equal(instance.links[0]?.rel, 'self');
    assert.deepEqual(instance.variables, {
      amount: { type: 'Integer', value: 42, valueInfo: {} },
      due: { type: 'String', value: '2024-05-06T05:08:09.010Z', valueInfo: {} },
      order: { type: 'Json', value: '{"lines":2}', valueInfo: {} },
    });
    const native = await fixture.instance(instance.id);
    assert.deepEqual(native.active_element_ids, ['review']);

    const inBeta = await call(
      'POST',
      '/process-definition/key/charge-card/tenant-id/beta/start',
      operator,
      {},
    );
    assert.equal(inBeta.statusCode, 200, inBeta.body);
    const betaInstance = inBeta.json() as StartedInstance;
    assert.equal(betaInstance.tenantId, 'beta');
    assert.equal(betaInstance.variables, undefined, 'no variables unless asked for');

    const [v1] = await list('?key=charge-card&version=1&tenantIdIn=acme');
    const byId = await call('POST', `/process-definition/${v1?.id ?? ''}/start`, operator, {
      businessKey: 'old',
    });
    assert.equal(byId.statusCode, 200, byId.body);
    assert.equal((byId.json() as StartedInstance).definitionId, v1?.id);
  });

  test('a Reader cannot start; bad start bodies answer Camunda-shaped 400', async () => {
    const denied = await call('POST', '/process-definition/key/review-order/start', reader, {});
    assertCamundaError(denied, 403, 'AuthorizationException');
    const badType = await call('POST', '/process-definition/key/review-order/start', operator, {
      variables: { file: { value: 'x', type: 'File' } },
    });
    assertCamundaError(badType, 400, 'InvalidRequestException', /'file'.*File/);
    const instructions = await call('POST', '/process-definition/key/review-order/start', operator, {
      startInstructions: [{ type: 'startBeforeActivity', activityId: 'review' }],
    });
    assertCamundaError(instructions, 400, 'InvalidRequestException', /startInstructions/);
    const notJson = await fixture.camunda({
      method: 'POST',
      url: '/engine-rest/process-definition/key/review-order/start',
      authorization: operator,
      body: '{"variables":',
      headers: { 'content-type': 'application/json' },
    });
    assertCamundaError(notJson, 400, 'InvalidRequestException');
  });
  test('historyTimeToLive: read from the model, shown in the DTO, and set by PUT …/history-time-to-live', async () => {
    const review = await fixtureFile('review.bpmn');
    const file = {
      name: 'retained.bpmn',
      contents: review.contents
        .replaceAll('review-order', 'retained')
        .replace('name="Review order"', 'name="Retained" camunda:historyTimeToLive="P180D"'),
    };
    const { payload, headers } = await modelerDeploymentRequest(file, { name: 'retained', tenantId: 'acme' });
    const deployed = await fixture.camunda({
      method: 'POST',
      url: '/engine-rest/deployment/create',
      body: payload,
      headers,
      authorization: operator,
    });
    assert.equal(deployed.statusCode, 200, deployed.body);
    const created = Object.values(
      (deployed.json() as { deployedProcessDefinitions: Record<string, { historyTimeToLive: unknown }> })
        .deployedProcessDefinitions,
    );
    assert.deepEqual(
      created.map((definition) => definition.historyTimeToLive),
      [180],
    );
    const [retained] = await list('?key=retained');
    assert.ok(retained !== undefined);
    assert.equal((retained as Definition & { historyTimeToLive: unknown }).historyTimeToLive, 180);
    const [other] = await list('?key=review-order');
    assert.equal((other as Definition & { historyTimeToLive: unknown }).historyTimeToLive, null);

    const timeToLive = async (path: string) =>
      ((await call('GET', `/process-definition/${path}`)).json() as { historyTimeToLive: unknown })
        .historyTimeToLive;
    const put = (path: string, body: unknown, authorization = operator) =>
      call('PUT', `/process-definition/${path}/history-time-to-live`, authorization, body);
    const byId = await put(retained.id, { historyTimeToLive: 5 });
    assert.equal(byId.statusCode, 204, byId.body);
    assert.equal(byId.body, '');
    assert.equal(await timeToLive(retained.id), 5);
    assert.equal((await put('key/retained/tenant-id/acme', { historyTimeToLive: null })).statusCode, 204);
    assert.equal(await timeToLive(retained.id), null);
    assert.equal((await put('key/retained', { historyTimeToLive: 0 })).statusCode, 204);
    assert.equal(await timeToLive(retained.id), 0);
    assert.equal((await put(retained.id, {})).statusCode, 204, 'absent is null, as in Camunda');
    assert.equal(await timeToLive(retained.id), null);

    assertCamundaError(await put(retained.id, { historyTimeToLive: -1 }), 400, 'InvalidRequestException');
    assertCamundaError(await put(retained.id, { historyTimeToLive: 'P5D' }), 400, 'InvalidRequestException');
    assertCamundaError(
      await put(retained.id, { historyTimeToLive: 5 }, reader),
      403,
      'AuthorizationException',
    );
    assertCamundaError(await put('not-an-id', { historyTimeToLive: 5 }), 404, 'InvalidRequestException');
    assertCamundaError(await put('key/nope', { historyTimeToLive: 5 }), 404, 'InvalidRequestException');
    assert.equal(await timeToLive(retained.id), null, 'a refused PUT changes nothing');
  });
});
