import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createConnectorFixture,
  connectorProcess,
  startTestServer,
  type ConnectorFixture,
  type TestServer,
} from './connector-fixture.js';

// Quotes and backslashes grow at each JSON escaping; `/`, `'`, `+` and a space differ per URL encoder.
const token = 'tk"9\\Zq81/x\'y+z me~0042';
const basicPassword = 'hunter"2\\pw-77';
const basicCredential = Buffer.from(`svc-user:${basicPassword}`).toString('base64');
const queryKey = 'literal-query-key-4242';

const jsonEscape = (text: string) => JSON.stringify(text).slice(1, -1);
const base64 = (text: string) => Buffer.from(text).toString('base64');

/** The forms of the secrets the test looks for in every channel. */
function secretForms(): string[] {
  const forms: string[] = [];
  for (const value of [token, basicPassword, `svc-user:${basicPassword}`]) {
    let escaped = value;
    for (let depth = 0; depth <= 5; depth++) {
      forms.push(
        escaped,
        encodeURIComponent(escaped),
        new URLSearchParams({ v: escaped }).toString().slice(2),
      );
      escaped = jsonEscape(escaped);
    }
    for (const wrapped of [value, `Bearer ${value}`, jsonEscape(value)]) {
      const encoded = base64(wrapped);
      forms.push(encoded, encoded.replace(/=+$/, ''), Buffer.from(wrapped).toString('base64url'));
    }
  }
  return forms;
}

/** The forms of a secret that `text` shows, also decoding every base64 run at each alignment. */
function leaks(text: string): string[] {
  const found = secretForms().filter((form) => text.includes(form));
  for (const run of text.match(/[A-Za-z0-9+/_-]{12,}/g) ?? []) {
    for (let skip = 0; skip < 4; skip++) {
      const decoded = Buffer.from(run.slice(skip), 'base64').toString('utf8');
      for (const value of [token, jsonEscape(token), basicPassword]) {
        if (decoded.includes(value)) found.push(`base64 of ${value} in ${run}`);
      }
    }
  }
  return found;
}

describe('a remote that echoes secrets re-encoded (JSON twice, base64, URL) never gets them shown', () => {
  let f: ConnectorFixture;
  let server: TestServer;
  let failedId = '';
  let echoedId = '';
  before(async () => {
    server = await startTestServer();
    f = await createConnectorFixture({ now: () => new Date('2026-11-21T10:00:00Z') });
    await f.putSecret('api-token', token);
    await f.putSecret('basic-credential', basicCredential);
    server.answer = (request, response) => {
      const authorization = String(request.headers.authorization ?? '');
      const basic = String(request.headers['x-basic'] ?? '').replace(/^Basic /, '');
      const echo = JSON.stringify({
        // The request body as a JSON string inside a JSON string (then once more in this answer).
        body: JSON.stringify(JSON.stringify(request.body)),
        authorization64: base64(authorization),
        authorization64url: Buffer.from(authorization).toString('base64url'),
        authorizationUrl: encodeURIComponent(authorization),
        authorizationForm: new URLSearchParams({ a: authorization }).toString(),
        // Every header in one base64 blob: the value sits at some offset inside it.
        headers64: base64(JSON.stringify(request.headers)),
        basicDecoded: Buffer.from(basic, 'base64').toString('utf8'),
        url: request.url,
      });
      response.writeHead(request.url.startsWith('/fail') ? 400 : 200, { 'content-type': 'application/json' });
      response.end(echo);
    };
    const connector = (path: string) =>
      `<weft:httpConnector method="POST" url="${server.url}/${path}/{{secret:api-token}}?api_key=${queryKey}&amp;page=2" retries="1">
         <weft:header name="Authorization">Bearer {{secret:api-token}}</weft:header>
         <weft:header name="x-basic">Basic {{secret:basic-credential}}</weft:header>
         <weft:body format="json"><![CDATA[{"token": "{{secret:api-token}}", "note": "hello"}]]></weft:body>
         <weft:output variable="echo" language="feel">body</weft:output>
         <weft:output variable="raw" language="jq">.body | tostring</weft:output>
       </weft:httpConnector>`;
    assert.equal((await f.deployXml(connectorProcess('echo-fail', connector('fail')))).statusCode, 201);
    assert.equal((await f.deployXml(connectorProcess('echo-ok', connector('ok')))).statusCode, 201);
    failedId = (await f.start('echo-fail')).id;
    echoedId = (await f.start('echo-ok')).id;
    await f.runUntil('both jobs', async () =>
      (await Promise.all([f.instance(failedId), f.instance(echoedId)])).every((i) => i.state !== 'running'),
    );
    const sent = server.received[0];
    assert.ok(sent);
    assert.equal(sent.headers.authorization, `Bearer ${token}`, 'the remote got the real value');
    assert.deepEqual(JSON.parse(sent.body), { token, note: 'hello' });
  });
  after(async () => {
    await f.close();
    await server.close();
  });

  test('the check itself sees the leaks in what the remote answered', () => {
    const answer = JSON.stringify({
      body: JSON.stringify(JSON.stringify(server.received[0]?.body)),
      authorization64: base64(`Bearer ${token}`),
    });
    assert.ok(leaks(answer).length >= 2);
  });

  test('incident message and job row', async () => {
    const failed = await f.instance(failedId);
    assert.equal(failed.state, 'incident');
    const message = (failed.incidents as { message: string }[])[0]?.message ?? '';
    assert.match(message, /answered 400/);
    assert.ok(message.includes('***'), message);
    assert.deepEqual(leaks(message), []);
    const incidents = await f.workflow.database.pool.query('SELECT message FROM incidents');
    assert.deepEqual(leaks(JSON.stringify(incidents.rows)), []);
    const jobs = await f.workflow.database.pool.query('SELECT last_error FROM connector_jobs');
    assert.deepEqual(leaks(JSON.stringify(jobs.rows)), []);
  });

  test('mapped variables and history', async () => {
    const echoed = await f.instance(echoedId);
    assert.equal(echoed.state, 'completed', JSON.stringify(echoed.incidents));
    const variables = echoed.variables as { echo: Record<string, string>; raw: string };
    assert.equal(variables.echo.authorization64, '***');
    assert.ok(variables.echo.body?.includes('hello'), 'the rest of the echo is kept');
    assert.deepEqual(leaks(JSON.stringify(echoed.variables)), []);
    for (const id of [failedId, echoedId]) assert.deepEqual(leaks(await f.history(id)), []);
    const { rows } = await f.workflow.database.pool.query('SELECT data FROM process_history');
    assert.deepEqual(leaks(JSON.stringify(rows)), []);
  });

  test('logs: no secret form, and the URL logged without its query-string key', () => {
    const text = f.workflow.logs.text();
    assert.deepEqual(leaks(text), []);
    const answered = f.workflow.logs.messages(/^connector request answered$/);
    assert.equal(answered.length, 2);
    for (const entry of answered) {
      assert.match(String(entry.url), /\/\*\*\*\?api_key=\[redacted\]&page=2$/);
    }
  });
});
