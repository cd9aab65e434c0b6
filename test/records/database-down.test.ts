import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createPool } from '../../src/platform/database/pool.js';
import { ordersPath, purchaseOrder, startRecordsApp, type RecordsTestApp } from './support/records-app.js';
import type { Body } from './support/records-app.js';

/** A TCP proxy in front of the test database that can be stopped and started like the server. */
class StoppableProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

describe('records with the database down', () => {
  let app: RecordsTestApp;
  let proxy: StoppableProxy;
  before(async () => {
    app = await startRecordsApp(
      {},
      {
        pool: async (database) => {
          const url = new URL(database.url);
          proxy = new StoppableProxy(url.hostname, Number(url.port));
          await proxy.start();
          url.hostname = '127.0.0.1';
          url.port = String(proxy.port);
          return createPool(url.toString(), { max: 4, applicationName: 'records-down-test' });
        },
      },
    );
  });
  after(async () => {
    await app.close();
    await proxy.stop();
  });

  test('every endpoint answers 503 POSTGRES_UNAVAILABLE while the database is stopped, then recovers', async () => {
    const created = await app.call('POST', `/api/${ordersPath}`, { body: purchaseOrder() });
    assert.equal(created.statusCode, 201);
    const url = `/api/${ordersPath}/${String(created.json<Body>().data.id)}`;
    await proxy.stop();
    const requests: [string, () => Promise<{ statusCode: number; json(): unknown }>][] = [
      ['create', () => app.call('POST', `/api/${ordersPath}`, { body: purchaseOrder() })],
      ['list', () => app.call('GET', `/api/${ordersPath}?sort=-amount`)],
      ['read', () => app.call('GET', url)],
      ['update', () => app.call('PATCH', url, { body: { version: 1, notes: 'x' } })],
      ['delete', () => app.call('DELETE', url)],
      ['query', () => app.call('POST', `/api/${ordersPath}/query`, { body: {} })],
      [
        'idempotent create',
        () =>
          app.call('POST', `/api/${ordersPath}`, {
            body: purchaseOrder(),
            headers: { 'idempotency-key': 'k' },
          }),
      ],
    ];
    for (const [name, request] of requests) {
      const response = await request();
      assert.equal(response.statusCode, 503, name);
      assert.equal((response.json() as { code: string }).code, 'POSTGRES_UNAVAILABLE', name);
    }
    assert.equal((await app.service.app.inject({ url: '/api/healthz' })).statusCode, 503);
    assert.equal((await app.service.app.inject({ url: '/api/readyz' })).statusCode, 503);
    await proxy.start();
    assert.equal((await app.call('GET', url)).statusCode, 200, 'serves again once the database is back');
    assert.equal((await app.service.app.inject({ url: '/api/healthz' })).statusCode, 200);
  });
});
