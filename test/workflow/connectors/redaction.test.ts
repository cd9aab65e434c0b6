import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createConnectorFixture,
  connectorProcess,
  startTestServer,
  type ConnectorFixture,
  type TestServer,
} from './connector-fixture.js';

const secret = 'pw-Zq81!xK/echo+me';

describe('a secret value never leaves the connector: every channel shows ***', () => {
  let f: ConnectorFixture;
  let server: TestServer;
  let failedId = '';
  let echoedId = '';
  before(async () => {
    server = await startTestServer();
    f = await createConnectorFixture({ now: () => new Date('2026-11-21T10:00:00Z') });
    await f.putSecret('db-password', secret);
    // The remote server echoes everything it got back, in an error for /fail and a success for /ok.
    server.answer = (request, response) => {
      const echo = JSON.stringify({
        got: request.headers['x-password'],
        url: request.url,
        body: request.body,
      });
      response.writeHead(request.url?.startsWith('/fail') ? 400 : 200, {
        'content-type': 'application/json',
      });
      response.end(echo);
    };
    const connector = (path: string) =>
      `<weft:httpConnector method="POST" url="${server.url}/${path}/{{secret:db-password}}" retries="1">
         <weft:header name="x-password">{{secret:db-password}}</weft:header>
         <weft:body format="json"><![CDATA[{"password": "{{secret:db-password}}"}]]></weft:body>
         <weft:output variable="echo" language="feel">body</weft:output>
       </weft:httpConnector>`;
    assert.equal((await f.deployXml(connectorProcess('leaky', connector('fail')))).statusCode, 201);
    assert.equal((await f.deployXml(connectorProcess('echoed', connector('ok')))).statusCode, 201);
    failedId = (await f.start('leaky')).id;
    echoedId = (await f.start('echoed')).id;
    await f.runUntil('both jobs', async () =>
      (await Promise.all([f.instance(failedId), f.instance(echoedId)])).every((i) => i.state !== 'running'),
    );
    assert.equal(server.received.length, 2);
    assert.equal(server.received[0]?.headers['x-password'], secret, 'the remote got the real value');
  });
  after(async () => {
    await f.close();
    await server.close();
  });

  const leaks = (text: string) =>
    [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)].filter((form) =>
      text.includes(form),
    );

  test('incident messages (the remote echoed it in its error response)', async () => {
    const failed = await f.instance(failedId);
    assert.equal(failed.state, 'incident');
    const message = (failed.incidents as { message: string }[])[0]?.message ?? '';
    assert.match(message, /answered 400/);
    assert.ok(message.includes('***'), message);
    assert.deepEqual(leaks(message), []);
    const { rows } = await f.workflow.database.pool.query<{ message: string }>(
      'SELECT message FROM incidents',
    );
    assert.deepEqual(leaks(JSON.stringify(rows)), []);
  });

  test('history entries and mapped variables (an echo in a successful answer)', async () => {
    const echoed = await f.instance(echoedId);
    assert.equal(echoed.state, 'completed');
    const echo = (echoed.variables as { echo: { got: string } }).echo;
    assert.equal(echo.got, '***');
    for (const id of [failedId, echoedId]) assert.deepEqual(leaks(await f.history(id)), []);
    const { rows } = await f.workflow.database.pool.query('SELECT data FROM process_history');
    assert.deepEqual(leaks(JSON.stringify(rows)), []);
    const jobs = await f.workflow.database.pool.query('SELECT last_error FROM connector_jobs');
    assert.deepEqual(leaks(JSON.stringify(jobs.rows)), []);
  });

  test('logs', () => {
    const text = f.workflow.logs.text();
    assert.ok(text.includes('connector request answered'), 'the connector did log its requests');
    assert.deepEqual(leaks(text), []);
  });

  test('metrics labels', async () => {
    const metrics = await f.workflow.request({ method: 'GET', url: '/metrics' });
    assert.ok(metrics.body.includes('weft_connector_requests_total'));
    assert.deepEqual(leaks(metrics.body), []);
  });

  test('error bodies of the API', async () => {
    const bodies: string[] = [];
    for (const id of [failedId, echoedId]) {
      bodies.push(
        (
          await f.workflow.request({
            method: 'GET',
            url: `/api/v1/process-instances/${id}`,
            token: f.tokens.reader,
          })
        ).body,
      );
      // Cancelling an ended or failed instance, setting variables: answers that may quote state.
      bodies.push(
        (
          await f.workflow.request({
            method: 'POST',
            url: `/api/v1/process-instances/${id}/cancel`,
            token: f.tokens.operator,
            body: {},
          })
        ).body,
      );
    }
    const refused = await f.workflow.request({
      method: 'POST',
      url: '/api/v1/secrets',
      token: f.tokens.admin,
      headers: { 'x-org-id': f.orgId },
      body: { name: 'db password', value: secret },
    });
    assert.equal(refused.statusCode, 400);
    bodies.push(refused.body);
    assert.deepEqual(leaks(bodies.join('\n')), []);
  });
});
