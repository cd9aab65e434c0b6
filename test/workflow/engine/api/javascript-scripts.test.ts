import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, fixtureXml, type EngineFixture } from './engine-fixture.js';

describe('script tasks in JavaScript in running instances', () => {
  let f: EngineFixture;
  before(async () => {
    f = await createEngineFixture();
    assert.equal((await f.deploy('javascript-script.bpmn')).statusCode, 201);
  });
  after(() => f.close());

  const start = async (variables: Record<string, unknown>, businessKey: string) => {
    const response = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/process-instances',
      token: f.tokens.operator,
      body: { org_id: f.orgId, process_key: 'pricing', business_key: businessKey, variables },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json() as { id: string; state: string; variables: Record<string, unknown> };
  };
  const deploy = async (xml: string) =>
    f.workflow.request({
      method: 'POST',
      url: '/api/v1/deployments',
      token: f.tokens.developer,
      body: { org_id: f.orgId, process_group_id: f.groupId, xml },
    });

  test('the scripts run to the end in the start call: variables set, result variable, execution answers', async () => {
    const instance = await start(
      {
        items: [
          { price: 10, quantity: 2 },
          { price: 5, quantity: 1 },
        ],
        limit: 100,
      },
      'order-7',
    );
    assert.equal(instance.state, 'completed');
    assert.equal(instance.variables.net, 25);
    assert.equal(instance.variables.total, 30);
    assert.equal(instance.variables.pricedFor, 'order-7');
    assert.equal(instance.variables.pricedAt, 'price');
    assert.equal(instance.variables.approved, true);
  });

  test('each script is a history entry of type javascript', async () => {
    const instance = await start({ items: [], limit: 1 }, 'order-8');
    const history = (
      await f.workflow.request({
        method: 'GET',
        url: `/api/v1/process-instances/${instance.id}/history`,
        token: f.tokens.reader,
      })
    ).json() as { kind: string; element_id?: string; data: Record<string, unknown> }[];
    const runs = history.filter((entry) => entry.kind === 'scriptStep').map((entry) => entry.data);
    assert.deepEqual(
      runs.map(({ name, type, status }) => ({ name, type, status })),
      [
        { name: 'price', type: 'javascript', status: 'ok' },
        { name: 'check', type: 'javascript', status: 'ok' },
      ],
    );
  });

  test('a throwing script raises an incident with its message and line; fixing the variable and retrying completes', async () => {
    const instance = await start({ items: [{ price: 100, quantity: 3 }], limit: 50 }, 'order-9');
    assert.equal(instance.state, 'incident');
    const detail = await f.instance(instance.id);
    const incidents = detail.incidents as { activity_id: string; message: string }[];
    assert.equal(incidents.length, 1);
    assert.equal(incidents[0]?.activity_id, 'check');
    assert.equal(
      incidents[0]?.message,
      "javascript script of 'check' failed at line 2, column 18: Error: total 360 is over the limit",
    );
    assert.equal((detail.variables as Record<string, unknown>).total, 360, 'the first script completed');
    assert.equal((detail.variables as Record<string, unknown>).approved, undefined);

    const patched = await f.workflow.request({
      method: 'PATCH',
      url: `/api/v1/process-instances/${instance.id}/variables`,
      token: f.tokens.operator,
      body: { variables: { limit: 1000 } },
    });
    assert.ok(patched.statusCode < 300, patched.body);
    const retried = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/process-instances/${instance.id}/retry`,
      token: f.tokens.operator,
    });
    assert.ok(retried.statusCode < 300, retried.body);
    const done = await f.instance(instance.id);
    assert.equal(done.state, 'completed');
    assert.equal((done.variables as Record<string, unknown>).approved, true);
  });

  test('an endless script becomes an incident at the time limit', async () => {
    const xml = (await fixtureXml('javascript-script.bpmn'))
      .replaceAll('id="pricing"', 'id="spinning"')
      .replace("execution.setVariable('approved', true);", 'while (true) {}');
    assert.equal((await deploy(xml)).statusCode, 201);
    const response = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/process-instances',
      token: f.tokens.operator,
      body: { org_id: f.orgId, process_key: 'spinning', variables: { items: [], limit: 1 } },
    });
    assert.equal(response.statusCode, 201, response.body);
    const instance = response.json() as { id: string; state: string };
    assert.equal(instance.state, 'incident');
    const incidents = (await f.instance(instance.id)).incidents as { message: string }[];
    assert.match(
      incidents[0]?.message ?? '',
      /javascript script of 'check' failed.*exceeded the time limit of \d+ ms/,
    );
  });

  test('a Groovy script task is refused at deploy with one problem naming the task and the format', async () => {
    const xml = (await fixtureXml('javascript-script.bpmn')).replace(
      'scriptFormat="JavaScript"',
      'scriptFormat="groovy"',
    );
    const response = await deploy(xml);
    assert.equal(response.statusCode, 400);
    const body = JSON.stringify(response.json());
    assert.match(body, /script task 'check' is written in 'groovy', which weft cannot run/);
    assert.equal(body.split('is written in').length, 2, 'one problem');
  });

  for (const [attribute, pattern] of [
    [
      'camunda:class="com.example.PriceDelegate"',
      /service task 'price' uses camunda:class, which is not supported/,
    ],
    [
      'camunda:delegateExpression="${priceDelegate}"',
      /service task 'price' uses camunda:delegateExpression, which is not supported/,
    ],
  ] as const) {
    test(`a service task with ${attribute.split('=')[0]} is refused at deploy, suggesting an external task`, async () => {
      const xml = (await fixtureXml('javascript-script.bpmn')).replace(
        /<bpmn:scriptTask id="price"[\s\S]*?<\/bpmn:scriptTask>/,
        `<bpmn:serviceTask id="price" ${attribute} />`,
      );
      const response = await deploy(xml);
      assert.equal(response.statusCode, 400);
      const body = JSON.stringify(response.json());
      assert.match(body, pattern);
      assert.match(body, /make it an external task/);
    });
  }
});
