import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestWorkflow, type TestWorkflow } from '../helpers/workflow.js';
import { startRecordsApp, type RecordsTestApp } from '../records/support/records-app.js';

interface RawAnswer {
  status: number;
  head: string;
  body: Record<string, unknown>;
}

/** Writes `request` on a fresh connection and reads the answer until the server closes it. */
function raw(port: number, request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('end', () => socket.end());
    socket.on('close', () => {
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      try {
        resolve({
          status: Number(head.split(' ')[1]),
          head,
          body: JSON.parse(body) as Record<string, unknown>,
        });
      } catch {
        reject(new Error(`not a JSON answer: ${answer.slice(0, 300)}`));
      }
    });
    socket.on('error', reject);
  });
}

const oversized = `GET /x HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
const garbled = 'GET /x HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n';
const badJson = (path: string) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 9\r\nConnection: close\r\n\r\n{"a": tru`;

describe('requests refused before any route are answered in each service’s error body', () => {
  let workflow: TestWorkflow;
  let records: RecordsTestApp;
  let workflowPort: number;
  let recordsPort: number;
  before(async () => {
    workflow = await startTestWorkflow();
    records = await startRecordsApp({}, { seedExamples: false });
    workflowPort = Number(new URL(await workflow.service.app.listen({ port: 0, host: '127.0.0.1' })).port);
    recordsPort = Number(new URL(await records.service.app.listen({ port: 0, host: '127.0.0.1' })).port);
  });
  after(async () => {
    await workflow.close();
    await records.close();
  });

  test('records: 431 headers too large, 400 unparsable HTTP, 400 malformed JSON', async () => {
    const large = await raw(recordsPort, oversized);
    assert.equal(large.status, 431);
    assert.equal(large.body.code, 'REQUEST_HEADERS_TOO_LARGE');
    assert.deepEqual(Object.keys(large.body).sort(), ['code', 'details', 'message', 'requestId']);
    assert.equal(large.body.requestId, /x-request-id: (\S+)/i.exec(large.head)?.[1]);
    const broken = await raw(recordsPort, garbled);
    assert.equal(broken.status, 400);
    assert.equal(broken.body.code, 'BAD_REQUEST');
    const json = await raw(recordsPort, badJson('/api/auth/logout'));
    assert.equal(json.status, 400);
    assert.equal(json.body.code, 'VALIDATION_ERROR');
    assert.equal(json.body.message, 'The request body is not valid JSON');
  });

  test('workflow: 431 headers too large, 400 unparsable HTTP, 400 malformed JSON', async () => {
    const large = await raw(workflowPort, oversized);
    assert.equal(large.status, 431);
    assert.deepEqual(large.body, { code: 'U431', message: 'The request headers are too large' });
    assert.match(large.head, /x-request-id: [0-9a-f-]{36}/i);
    const broken = await raw(workflowPort, garbled);
    assert.equal(broken.status, 400);
    assert.deepEqual(broken.body, { code: 'U400', message: 'The request is not valid HTTP' });
    const json = await raw(workflowPort, badJson('/api/v1/auth/login'));
    assert.equal(json.status, 400);
    assert.deepEqual(json.body, { code: 'U400', message: 'The request body is not valid JSON' });
  });
});
