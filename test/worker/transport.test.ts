import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { ExternalTaskApiClient } from '../../src/worker/api-client.js';
import { ExternalTaskNetworkError } from '../../src/worker/errors.js';
import { fetchTransport, pooledTransport, type Transport } from '../../src/worker/transport.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const seen: Seen[] = [];
let openSockets = 0;
let server: Server;
let origin = '';

before(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      if (request.url?.includes('/hang')) return; // never answers
      response.writeHead(request.url?.includes('/busy') ? 429 : 200, {
        'content-type': 'application/json',
        'retry-after': '7',
      });
      response.end(request.url?.includes('/busy') ? '{"code":"U429","message":"slow down"}' : '{"ok":true}');
    });
  });
  server.on('connection', (socket) => {
    openSockets++;
    socket.on('close', () => openSockets--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const transports: [string, (base: string) => Transport][] = [
  ['pooled', (base) => pooledTransport(base)],
  ['fetch', (base) => fetchTransport(base, fetch)],
];

for (const [name, open] of transports) {
  test(`${name} transport: sends method, path under the base URL's path, headers and body; reads the answer`, async () => {
    const transport = open(`${origin}/weft`);
    try {
      const answer = await transport.send({
        method: 'PATCH',
        path: '/api/v1/external-tasks/t1/lock',
        headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
        body: '{"new_duration_ms":5}',
        timeoutMs: 5_000,
      });
      const request = seen.at(-1);
      assert.equal(request?.method, 'PATCH');
      assert.equal(request?.url, '/weft/api/v1/external-tasks/t1/lock');
      assert.equal(request?.headers.authorization, 'Bearer k');
      assert.equal(request?.body, '{"new_duration_ms":5}');
      assert.equal(answer.status, 200);
      assert.equal(answer.header('Retry-After'), '7');
      assert.equal(answer.text, '{"ok":true}');
    } finally {
      await transport.close();
    }
  });

  test(`${name} transport: the API client turns an error answer into ExternalTaskApiError with Retry-After`, async () => {
    const transport = open(`${origin}/busy`);
    try {
      const client = new ExternalTaskApiClient({ transport, workerId: 'w', requestTimeoutMs: 5_000 });
      await assert.rejects(
        client.complete('t1'),
        (error: Error & { status?: number; retryAfterMs?: number }) => {
          assert.equal(error.name, 'ExternalTaskApiError');
          assert.equal(error.status, 429);
          assert.equal(error.retryAfterMs, 7_000);
          return true;
        },
      );
    } finally {
      await transport.close();
    }
  });

  test(`${name} transport: no answer within requestTimeoutMs is a network error that says it timed out`, async () => {
    const transport = open(`${origin}/hang`);
    try {
      const client = new ExternalTaskApiClient({ transport, workerId: 'w', requestTimeoutMs: 150 });
      const startedAt = Date.now();
      await assert.rejects(client.complete('t1', { secret: 'do not echo' }), (error: Error) => {
        assert.ok(error instanceof ExternalTaskNetworkError);
        assert.match(error.message, /^POST \/t1\/complete: timed out$/);
        return true;
      });
      assert.ok(Date.now() - startedAt < 3_000, 'gave up near the time limit');
    } finally {
      await transport.close();
    }
  });

  test(`${name} transport: an aborted signal ends a long poll at once`, async () => {
    const transport = open(`${origin}/hang`);
    try {
      const client = new ExternalTaskApiClient({ transport, workerId: 'w', requestTimeoutMs: 5_000 });
      const abort = new AbortController();
      const polling = client.fetchAndLock({
        maxTasks: 1,
        topics: [{ topicName: 't', lockDurationMs: 1000 }],
        asyncResponseTimeoutMs: 30_000,
        signal: abort.signal,
      });
      setTimeout(() => abort.abort(), 50);
      await assert.rejects(polling, /aborted/);
    } finally {
      await transport.close();
    }
  });
}

test('pooled transport: keeps connections alive across requests and closes them on close()', async () => {
  const before = openSockets;
  const transport = pooledTransport(origin);
  for (let i = 0; i < 20; i++) {
    await transport.send({ method: 'GET', path: '/ping', headers: {}, timeoutMs: 5_000 });
  }
  // A connection is free again a moment after its answer was read, so a second one may open.
  const opened = openSockets - before;
  assert.ok(opened >= 1 && opened <= 2, `20 requests in a row opened ${opened} connections`);
  await transport.close();
  for (let i = 0; i < 50 && openSockets > before; i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(openSockets, before, 'close() ended the connection');
  // A closed transport opens a new pool on the next request.
  const again = await transport.send({ method: 'GET', path: '/ping', headers: {}, timeoutMs: 5_000 });
  assert.equal(again.status, 200);
  await transport.close();
});
