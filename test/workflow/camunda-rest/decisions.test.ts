import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { assertCamundaError, createRuntimeFixture, type RuntimeFixture } from './runtime-fixture.js';

interface DecisionDefinition {
  id: string;
  key: string;
  name: string;
  version: number;
  deploymentId: string;
  tenantId: string;
  category: null;
  versionTag: null;
  historyTimeToLive: number | null;
}

describe('/engine-rest/decision-definition', () => {
  let fixture: RuntimeFixture;
  let xml: string;
  before(async () => {
    fixture = await createRuntimeFixture();
    xml = await readFile(new URL('./fixtures/dish.dmn', import.meta.url), 'utf8');
    for (const orgId of [fixture.orgs.acme, fixture.orgs.beta])
      await fixture.native('POST', '/api/v1/decisions', { xml }, { 'x-org-id': orgId });
    // A second version in acme (another name makes it differ), with a history time to live.
    await fixture.native(
      'POST',
      '/api/v1/decisions',
      {
        xml: xml.replace(
          'name="Dish"',
          'name="Dish v2" xmlns:camunda="http://camunda.org/schema/1.0/dmn" camunda:historyTimeToLive="P30D"',
        ),
      },
      { 'x-org-id': fixture.orgs.acme },
    );
  });
  after(() => fixture.close());

  const get = (path: string, token = fixture.operator.jwt) => fixture.engineRest('GET', path, token);
  const post = (path: string, body: unknown, token = fixture.operator.jwt) =>
    fixture.engineRest('POST', path, token, body);
  const list = async (query: string, token?: string) => {
    const response = await get(`/decision-definition?${query}`, token);
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as DecisionDefinition[];
  };

  test("GET /decision-definition lists the versions of the caller's tenants, filtered and paged", async () => {
    const all = await list('');
    assert.deepEqual(
      all.map((d) => [d.key, d.version, d.tenantId, d.name]),
      [
        ['dish', 1, 'acme', 'Dish v2'],
        ['dish', 2, 'acme', 'Dish v2'],
      ],
    );
    const [latest] = await list('key=dish&latestVersion=true');
    assert.equal(latest?.version, 2);
    assert.match(latest.deploymentId, /^[0-9a-f-]{36}$/);
    assert.equal(latest.category, null);
    assert.equal(latest.versionTag, null);
    assert.deepEqual(
      (await list('version=1')).map((d) => d.version),
      [1],
    );
    assert.deepEqual((await list('keyLike=di%25')).length, 2);
    assert.deepEqual((await list('nameLike=%25v2')).length, 2);
    assert.deepEqual(
      (await list(`decisionDefinitionId=${latest.id}`)).map((d) => d.id),
      [latest.id],
    );
    assert.deepEqual(
      (await list('sortBy=version&sortOrder=desc')).map((d) => d.version),
      [2, 1],
    );
    assert.deepEqual(
      (await list('sortBy=version&sortOrder=asc&firstResult=1&maxResults=1')).map((d) => d.version),
      [2],
    );
    assert.deepEqual(await list('withoutTenantId=true'), []);
    const both = await list('', fixture.admin);
    assert.deepEqual(both.map((d) => d.tenantId).sort(), ['acme', 'acme', 'beta']);
    const count = await get('/decision-definition/count?key=dish');
    assert.deepEqual(count.json(), { count: 2 });
    assertCamundaError(await get('/decision-definition?tenantIdIn=beta'), 400, 'InvalidRequestException');
    assertCamundaError(
      await get('/decision-definition?versionTag=1'),
      400,
      'InvalidRequestException',
      /versionTag/,
    );
  });

  test('GET by key, by key and tenant, by id, and the XML', async () => {
    const byKey = await get('/decision-definition/key/dish');
    assert.equal(byKey.statusCode, 200, byKey.body);
    const latest = byKey.json() as DecisionDefinition;
    assert.equal(latest.version, 2);
    assert.equal(latest.historyTimeToLive, 30, "the decision's camunda:historyTimeToLive");
    assert.equal((await list('key=dish&version=1'))[0]?.historyTimeToLive, null);
    const byId = (await get(`/decision-definition/${latest.id}`)).json() as DecisionDefinition;
    assert.deepEqual(byId, latest);
    const inBeta = await get('/decision-definition/key/dish/tenant-id/beta', fixture.admin);
    assert.equal((inBeta.json() as DecisionDefinition).tenantId, 'beta');
    // The admin sees the key in two tenants: it must name one.
    assertCamundaError(
      await get('/decision-definition/key/dish', fixture.admin),
      400,
      'InvalidRequestException',
      /several tenants/,
    );
    const diagram = await get('/decision-definition/key/dish/xml');
    assert.deepEqual(Object.keys(diagram.json() as object), ['id', 'dmnXml']);
    assert.match((diagram.json() as { dmnXml: string }).dmnXml, /Dish v2/);
    const byIdXml = await get(`/decision-definition/${latest.id}/xml`);
    assert.equal((byIdXml.json() as { id: string }).id, latest.id);
    assertCamundaError(await get('/decision-definition/key/nope'), 404, 'InvalidRequestException', /'nope'/);
    assertCamundaError(await get('/decision-definition/not-an-id'), 404, 'InvalidRequestException');
    assertCamundaError(
      await get('/decision-definition/key/dish/tenant-id/beta'),
      400,
      'InvalidRequestException',
      /Unknown tenant id/,
    );
  });

  test('evaluate answers one row per matched rule, each output a typed variable', async () => {
    const response = await post('/decision-definition/key/dish/evaluate', {
      variables: { season: { value: 'Winter', type: 'String' }, guests: { value: 8, type: 'Integer' } },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), [
      {
        dish: { type: 'String', value: 'Stew', valueInfo: {} },
        portions: { type: 'Integer', value: 16, valueInfo: {} },
      },
      {
        dish: { type: 'String', value: 'Soup', valueInfo: {} },
        portions: { type: 'Integer', value: 2, valueInfo: {} },
      },
    ]);
    const odd = await post('/decision-definition/key/dish/tenant-id/acme/evaluate', {
      variables: { season: { value: 'Winter', type: 'String' }, guests: { value: '1.5', type: 'Double' } },
    });
    assert.deepEqual(odd.json(), [
      {
        dish: { type: 'String', value: 'Stew', valueInfo: {} },
        portions: { type: 'Integer', value: 3, valueInfo: {} },
      },
    ]);
    const [first] = await list('version=1');
    const byId = await post(`/decision-definition/${first?.id ?? ''}/evaluate`, {
      variables: { season: { value: 'Summer' }, guests: { value: 2 } },
    });
    assert.deepEqual(byId.json(), [
      {
        dish: { type: 'String', value: 'Salad', valueInfo: {} },
        portions: { type: 'Integer', value: 2, valueInfo: {} },
      },
    ]);
    const none = await post('/decision-definition/key/dish/evaluate', {
      variables: { season: { value: 'Spring', type: 'String' }, guests: { value: 2, type: 'Integer' } },
    });
    assert.deepEqual(none.json(), []);
  });

  test('evaluation needs Developer or Operator; bad input is a 4xx', async () => {
    const variables = { season: { value: 'Winter', type: 'String' }, guests: { value: 2, type: 'Integer' } };
    assertCamundaError(
      await post('/decision-definition/key/dish/evaluate', { variables }, fixture.users.reader.jwt),
      403,
      'AuthorizationException',
    );
    assertCamundaError(
      await post('/decision-definition/key/dish/evaluate', {
        variables: { season: { value: 1, type: 'Xml' } },
      }),
      400,
      'InvalidRequestException',
      /'season'/,
    );
    // Missing input data cannot be evaluated: weft's 422 is Camunda's 400.
    assertCamundaError(
      await post('/decision-definition/key/dish/evaluate', { variables: {} }),
      400,
      'InvalidRequestException',
    );
    assertCamundaError(
      await post('/decision-definition/key/nope/evaluate', { variables }),
      404,
      'InvalidRequestException',
    );
    // The Reader reads.
    assert.equal((await list('', fixture.users.reader.jwt)).length, 2);
  });
});
