import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createConnectorFixture,
  connectorProcess,
  startTestServer,
  type ConnectorFixture,
  type TestServer,
} from './connector-fixture.js';

const token = 'tok_9f8e7d6c5b4a3210-SECRET';

describe('HTTP push connector against a real server on 127.0.0.1', () => {
  let f: ConnectorFixture;
  let server: TestServer;
  let now = new Date('2026-11-21T10:00:00Z');
  const moveClock = (ms: number) => (now = new Date(now.getTime() + ms));
  before(async () => {
    server = await startTestServer();
    f = await createConnectorFixture({ now: () => now });
    await f.putSecret('shop-token', token);
  });
  after(async () => {
    await f.close();
    await server.close();
  });

  const deploy = async (key: string, connector: string) => {
    const response = await f.deployXml(connectorProcess(key, connector));
    assert.equal(response.statusCode, 201, response.body);
  };
  const jobRows = async (instanceId: string) =>
    (
      await f.workflow.database.pool.query<{
        retries: number;
        attempts: number;
        due_at: Date;
        last_error: string | null;
      }>('SELECT retries, attempts, due_at, last_error FROM connector_jobs WHERE process_instance_id = $1', [
        instanceId,
      ])
    ).rows;
  const ended = (id: string) => async () => (await f.instance(id)).state !== 'running';

  test('success: secret and variables rendered into the request, the answer mapped with FEEL and jq', async () => {
    server.received.length = 0;
    server.answer = (_request, response) => {
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: 'ord-77', items: [{ sku: 'a' }, { sku: 'b' }] }));
    };
    await deploy(
      'ok',
      `<weft:httpConnector method="POST" url="${server.url}/orders/{{= customer.id }}?q={{= note }}" timeoutMs="2000">
         <weft:header name="Authorization">Bearer {{secret:shop-token}}</weft:header>
         <weft:body format="json"><![CDATA[{"total": {{= total * 2 }}, "note": {{= note }}}]]></weft:body>
         <weft:output variable="orderId" language="feel">body.id</weft:output>
         <weft:output variable="httpStatus" language="feel">status</weft:output>
         <weft:output variable="skus" language="jq">[.body.items[].sku]</weft:output>
       </weft:httpConnector>`,
    );
    const instance = await f.start('ok', { customer: { id: 'c/1' }, total: 21, note: 'a b' });
    assert.equal(instance.state, 'running', 'the request is not sent by the call that reached the task');
    assert.equal(server.received.length, 0);
    assert.equal((await jobRows(instance.id)).length, 1);
    await f.runUntil('the connector job', ended(instance.id));
    const done = await f.instance(instance.id);
    assert.equal(done.state, 'completed', JSON.stringify(done.incidents));
    assert.equal(server.received.length, 1);
    const sent = server.received[0];
    assert.ok(sent);
    assert.equal(sent.method, 'POST');
    assert.equal(sent.url, '/orders/c%2F1?q=a%20b');
    assert.equal(sent.headers.authorization, `Bearer ${token}`);
    assert.equal(sent.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(sent.body), { total: 42, note: 'a b' });
    const variables = done.variables as Record<string, unknown>;
    assert.equal(variables.orderId, 'ord-77');
    assert.equal(variables.httpStatus, 201);
    assert.deepEqual(variables.skus, ['a', 'b']);
    assert.deepEqual(await jobRows(instance.id), [], 'the job row went with its wait');
  });

  test('retries with the model backoff, then an incident; retrying the incident sends again', async () => {
    server.received.length = 0;
    server.answer = (_request, response) => {
      response.writeHead(503);
      response.end('busy');
    };
    await deploy(
      'flaky',
      `<weft:httpConnector url="${server.url}/flaky" retries="3" retryBackoffMs="10000" maxRetryBackoffMs="15000" />`,
    );
    const instance = await f.start('flaky');
    await f.runUntil(
      'the first attempt',
      async () => server.received.length === 1 && (await jobRows(instance.id))[0]?.attempts === 1,
    );
    let [row] = await jobRows(instance.id);
    assert.equal(row?.retries, 2);
    assert.equal(row?.due_at.getTime(), now.getTime() + 10_000, 'first backoff: retryBackoffMs');
    assert.match(row?.last_error ?? '', /answered 503: busy/);
    assert.equal((await f.workflow.service.runConnectorJobs()).claimed, 0, 'not due before the backoff');
    moveClock(10_000);
    await f.runUntil('the second attempt', async () => (await jobRows(instance.id))[0]?.attempts === 2);
    [row] = await jobRows(instance.id);
    assert.equal(
      row?.due_at.getTime(),
      now.getTime() + 15_000,
      'second backoff: doubled, capped by maxRetryBackoffMs',
    );
    moveClock(15_000);
    await f.runUntil('the incident', ended(instance.id));
    const failed = await f.instance(instance.id);
    assert.equal(failed.state, 'incident');
    assert.equal(server.received.length, 3);
    const incidents = failed.incidents as { message: string }[];
    assert.match(
      incidents[0]?.message ?? '',
      /HTTP connector 'call'.*answered 503: busy \(after 3 attempts\)/,
    );
    assert.deepEqual(await jobRows(instance.id), [], 'the failed wait took its job along');

    server.answer = (_request, response) => response.end();
    const retry = await f.workflow.request({
      method: 'POST',
      url: `/api/v1/process-instances/${instance.id}/retry`,
      token: f.tokens.operator,
      body: {},
    });
    assert.ok(retry.statusCode < 300, retry.body);
    await f.runUntil('the retried job', async () => (await f.instance(instance.id)).state === 'completed');
    assert.equal(server.received.length, 4);
  });

  test('a request that gets no answer within timeoutMs fails the attempt', async () => {
    server.received.length = 0;
    server.answer = () => undefined; // never answers
    await deploy('slow', `<weft:httpConnector url="${server.url}/slow" timeoutMs="150" retries="1" />`);
    const instance = await f.start('slow');
    await f.runUntil('the timeout incident', ended(instance.id));
    const failed = await f.instance(instance.id);
    assert.equal(failed.state, 'incident');
    assert.match(
      (failed.incidents as { message: string }[])[0]?.message ?? '',
      /no complete answer within 150 ms/,
    );
  });

  test('a response body over the cap fails the attempt', async () => {
    server.answer = (_request, response) => response.end('x'.repeat(10_000));
    await deploy('big', `<weft:httpConnector url="${server.url}/big" retries="1" />`);
    const instance = await f.start('big');
    await f.runUntil('the incident', ended(instance.id));
    assert.match(
      ((await f.instance(instance.id)).incidents as { message: string }[])[0]?.message ?? '',
      /response body over 4096 bytes/,
    );
  });

  test('a missing secret is an incident naming the secret, without retries', async () => {
    server.received.length = 0;
    await deploy(
      'nosecret',
      `<weft:httpConnector url="${server.url}/x" retries="5">
         <weft:header name="x-api-key">{{secret:not-there}}</weft:header>
       </weft:httpConnector>`,
    );
    const instance = await f.start('nosecret');
    await f.runUntil('the incident', ended(instance.id));
    const message = ((await f.instance(instance.id)).incidents as { message: string }[])[0]?.message ?? '';
    assert.match(message, /secret 'not-there' does not exist/);
    assert.equal(server.received.length, 0);
  });

  test('link-local and metadata addresses are refused unless the allowlist opens them; an allowlist restricts hosts', async () => {
    await deploy('metadata', `<weft:httpConnector url="http://169.254.169.254/latest/meta-data/" />`);
    const metadata = await f.start('metadata');
    await f.runUntil('the refusal', ended(metadata.id));
    assert.match(
      ((await f.instance(metadata.id)).incidents as { message: string }[])[0]?.message ?? '',
      /169\.254\.169\.254 is link-local or a metadata address/,
    );

    const setAllowlist = (hosts: string[]) =>
      f.workflow.request({
        method: 'PUT',
        url: '/api/v1/connectors/allowlist',
        token: f.tokens.admin,
        headers: { 'x-org-id': f.orgId },
        body: { hosts },
      });
    assert.equal((await setAllowlist(['not a host!'])).statusCode, 400);
    assert.equal((await setAllowlist(['api.example.com', '*.example.org'])).statusCode, 200);
    server.received.length = 0;
    server.answer = (_request, response) => response.end();
    await deploy('listed', `<weft:httpConnector url="${server.url}/listed" />`);
    const refused = await f.start('listed');
    await f.runUntil('the refusal', ended(refused.id));
    assert.match(
      ((await f.instance(refused.id)).incidents as { message: string }[])[0]?.message ?? '',
      /not on the organisation's connector allowlist/,
    );
    assert.equal(server.received.length, 0);
    assert.equal((await setAllowlist(['127.0.0.0/8'])).statusCode, 200);
    const allowed = await f.start('listed');
    await f.runUntil('the call', ended(allowed.id));
    assert.equal((await f.instance(allowed.id)).state, 'completed');
    assert.equal((await setAllowlist([])).statusCode, 200);
    const listed = await f.workflow.request({
      method: 'GET',
      url: '/api/v1/connectors/allowlist',
      token: f.tokens.admin,
      headers: { 'x-org-id': f.orgId },
    });
    assert.deepEqual(listed.json(), { hosts: [] });
  });

  test('an invalid <weft:httpConnector> is refused at deploy time with every problem', async () => {
    const response = await f.deployXml(
      connectorProcess(
        'broken',
        `<weft:httpConnector method="FETCH" url="ftp://x" retries="0" timeoutMs="abc" expectedStatus="2xx">
           <weft:output variable="1x" language="python">x</weft:output>
           <weft:query />
         </weft:httpConnector>`,
      ),
    );
    assert.equal(response.statusCode, 400);
    const text = response.body;
    for (const expected of [
      'method',
      'url must start',
      'retries',
      'timeoutMs',
      'expectedStatus',
      "'1x'",
      'python',
      'weft:query',
    ]) {
      assert.ok(text.includes(expected), `mentions ${expected}: ${text}`);
    }
  });
});
