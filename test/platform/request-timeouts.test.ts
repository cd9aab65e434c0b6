import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestWorkflow, type TestWorkflow } from '../helpers/workflow.js';
import { ordersPath, startRecordsApp, type RecordsTestApp } from '../records/support/records-app.js';

const env = { WEFT_REQUEST_HEADERS_TIMEOUT_MS: '500', WEFT_REQUEST_BODY_TIMEOUT_MS: '500' };

/** Sends `head` on a raw socket and collects what comes back until the server closes it. */
function rawExchange(port: number, head: string, giveUpMs = 10_000) {
  return new Promise<{ response: string; closedAfterMs: number }>((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect(port, '127.0.0.1', () => socket.write(head));
    let response = '';
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open ${giveUpMs} ms`));
    }, giveUpMs);
    socket.on('data', (chunk) => (response += chunk.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ response, closedAfterMs: performance.now() - started });
    });
  });
}

function bodyOf(response: string): Record<string, unknown> {
  return JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
}

describe('request timeouts of the workflow service', () => {
  let workflow: TestWorkflow;
  let port: number;
  before(async () => {
    workflow = await startTestWorkflow({ env, timerLeader: false });
    const url = await workflow.service.app.listen({ host: '127.0.0.1', port: 0 });
    port = Number(new URL(url).port);
  });
  after(() => workflow.close());

  test('a POST whose announced body never arrives gets 408 U408 and its connection closed within the body timeout', async () => {
    const { response, closedAfterMs } = await rawExchange(
      port,
      'POST /api/v1/auth/login HTTP/1.1\r\nHost: weft\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":',
    );
    assert.match(response, /^HTTP\/1\.1 408 /);
    assert.match(response, /connection: close/i);
    assert.equal(bodyOf(response).code, 'U408');
    assert.ok(closedAfterMs < 2000, `closed after ${Math.round(closedAfterMs)} ms`);
  });

  test('headers that never end get the connection closed within the headers timeout', async () => {
    const { response, closedAfterMs } = await rawExchange(port, 'GET /health HTTP/1.1\r\nHost: weft\r\n');
    assert.match(response, /^(HTTP\/1\.1 408 |$)/);
    // The headers timeout plus Node's check interval (at most 500 ms here).
    assert.ok(closedAfterMs < 2500, `closed after ${Math.round(closedAfterMs)} ms`);
  });

  // Longer than Node's whole-request backstop (headers + body timeouts + 5 s): both limits cover
  // receiving a request, not waiting to answer it.
  test('a long poll is not cut by the request timeouts: it waits out its async_response_timeout_ms', async () => {
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/external-tasks/fetch-and-lock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        worker_id: 'patient-worker',
        max_tasks: 1,
        topics: [{ topic_name: 'nothing-here', lock_duration_ms: 1000 }],
        async_response_timeout_ms: 6500,
      }),
    });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), []);
    assert.ok(performance.now() - started >= 6400, 'it waited for tasks');
  });

  test('a body that arrives in time is served', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'nobody@example.com', password: 'wrong password' }),
    });
    assert.equal(response.status, 401);
  });
});

describe('request timeouts of the records service', () => {
  let app: RecordsTestApp;
  let port: number;
  before(async () => {
    app = await startRecordsApp(env);
    const url = await app.service.app.listen({ host: '127.0.0.1', port: 0 });
    port = Number(new URL(url).port);
  });
  after(() => app.close());

  test('a POST whose announced body never arrives gets 408 REQUEST_TIMEOUT and its connection closed', async () => {
    const token = await app.token();
    const { response, closedAfterMs } = await rawExchange(
      port,
      `POST /api/${ordersPath} HTTP/1.1\r\nHost: weft\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
    );
    assert.match(response, /^HTTP\/1\.1 408 /);
    const body = bodyOf(response);
    assert.equal(body.code, 'REQUEST_TIMEOUT');
    assert.equal(typeof body.requestId, 'string');
    assert.ok(closedAfterMs < 2000, `closed after ${Math.round(closedAfterMs)} ms`);
  });
});
