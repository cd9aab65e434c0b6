import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPool } from '../../src/platform/database/pool.js';
import { ListenConnection } from '../../src/platform/database/listen-connection.js';
import { createMigratedDatabase, type TestDatabase } from '../helpers/database.js';
import { captureLogs } from '../helpers/log-capture.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { startTestWorkflow, type TestWorkflow } from '../helpers/workflow.js';
import { deployAsAdmin } from '../workflow/engine/api/engine-fixture.js';
import {
  ordersPath,
  purchaseOrder,
  startRecordsApp,
  type RecordsTestApp,
} from '../records/support/records-app.js';
import { asRecordsRuntimeLogin } from '../helpers/runtime-login.js';

// Small bounds so the test is quick: a statement may take 1 s (the client gives up 1 s later), a
// connection 1 s to open or to come free, a health probe 500 ms.
const timeouts = {
  WEFT_DATABASE_STATEMENT_TIMEOUT_MS: '1000',
  WEFT_DATABASE_CONNECT_TIMEOUT_MS: '1000',
  WEFT_HEALTH_TIMEOUT_MS: '500',
};
const healthBoundMs = 1500;
const requestBoundMs = 4000;

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

async function eventually(check: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return performance.now() - started;
}

describe('workflow with PostgreSQL blackholed', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let workflow: TestWorkflow;
  let admin: string;
  let orgId: string;
  before(async () => {
    database = await createMigratedDatabase('workflow');
    proxy = await TcpProxy.forUrl(database.url);
    workflow = await startTestWorkflow({
      database,
      env: timeouts,
      timerLeader: false,
      runtimeUrl: (url) => proxy.proxied(url),
    });
    ({ admin, orgId } = await deployAsAdmin(workflow, 'payment.bpmn'));
  });
  after(async () => {
    await proxy.close();
    await workflow.close();
    await database.drop();
  });

  const start = () =>
    workflow.request({
      method: 'POST',
      url: '/api/v1/process-instances',
      token: admin,
      body: { org_id: orgId, process_key: 'payment', variables: { amount: 5 } },
    });

  test('/health and a start answer 503 with the error body within their bounds, then recover without a restart', async () => {
    assert.equal((await start()).statusCode, 201);
    await proxy.blackhole();

    const health = await timed(() => workflow.request({ method: 'GET', url: '/health' }));
    assert.equal(health.value.statusCode, 503);
    assert.ok(health.ms < healthBoundMs, `/health took ${Math.round(health.ms)} ms`);
    const body = health.value.json() as Record<string, unknown>;
    assert.equal(body.code, 'U503');
    assert.equal(body.message, 'The database is unavailable');
    assert.equal(body.status, 'error');
    assert.equal(body.database, 'unreachable');
    assert.equal((body.details as { request_id?: unknown }).request_id, health.value.headers['x-request-id']);

    // Several at once: some wait for a pool connection, some on a connection that never answers.
    const starts = await timed(() => Promise.all(Array.from({ length: 12 }, start)));
    assert.ok(starts.ms < requestBoundMs, `the starts took ${Math.round(starts.ms)} ms`);
    for (const response of starts.value) {
      assert.equal(response.statusCode, 503, response.body);
      assert.equal((response.json() as { code: string }).code, 'U503');
    }
    const again = await timed(() => workflow.request({ method: 'GET', url: '/health' }));
    assert.equal(again.value.statusCode, 503);
    assert.ok(again.ms < healthBoundMs, `/health took ${Math.round(again.ms)} ms while blackholed`);

    await proxy.pass();
    await eventually(
      async () => (await workflow.request({ method: 'GET', url: '/health' })).statusCode === 200,
      5000,
    );
    const after = await start();
    assert.equal(after.statusCode, 201, after.body);
  });
});

describe('records with PostgreSQL blackholed', () => {
  let proxy: TcpProxy;
  let app: RecordsTestApp;
  before(async () => {
    app = await startRecordsApp(timeouts, {
      pool: async (database) => {
        proxy = await TcpProxy.forUrl(database.url);
        return createPool(proxy.proxied(asRecordsRuntimeLogin(database.url)), {
          max: 4,
          applicationName: 'records-blackhole-test',
          timeouts: { statementMs: 1000, connectMs: 1000 },
        });
      },
    });
  });
  after(async () => {
    await proxy.close();
    await app.close();
  });

  test('/api/healthz, /api/readyz and record requests answer 503 POSTGRES_UNAVAILABLE within their bounds, then recover', async () => {
    const created = await app.call('POST', `/api/${ordersPath}`, { body: purchaseOrder() });
    assert.equal(created.statusCode, 201, created.body);
    await proxy.blackhole();

    for (const url of ['/api/healthz', '/api/readyz']) {
      const probe = await timed(() => app.service.app.inject({ url }));
      assert.equal(probe.value.statusCode, 503, url);
      assert.ok(probe.ms < healthBoundMs, `${url} took ${Math.round(probe.ms)} ms`);
      const body = probe.value.json() as Record<string, unknown>;
      assert.equal(body.code, 'POSTGRES_UNAVAILABLE', url);
      assert.equal(body.requestId, probe.value.headers['x-request-id'], url);
      assert.equal(body.database, 'unreachable', url);
    }

    const requests = await timed(() =>
      Promise.all([
        ...Array.from({ length: 8 }, () => app.call('GET', `/api/${ordersPath}`)),
        app.call('POST', `/api/${ordersPath}`, { body: purchaseOrder() }),
      ]),
    );
    assert.ok(requests.ms < requestBoundMs, `the requests took ${Math.round(requests.ms)} ms`);
    for (const response of requests.value) {
      assert.equal(response.statusCode, 503, response.body);
      assert.equal((response.json() as { code: string }).code, 'POSTGRES_UNAVAILABLE');
    }

    await proxy.pass();
    await eventually(
      async () => (await app.service.app.inject({ url: '/api/healthz' })).statusCode === 200,
      5000,
    );
    assert.equal((await app.call('GET', `/api/${ordersPath}`)).statusCode, 200);
    assert.equal((await app.call('POST', `/api/${ordersPath}`, { body: purchaseOrder() })).statusCode, 201);
  });
});

describe('a LISTEN connection behind a blackhole', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  before(async () => {
    database = await createMigratedDatabase('workflow');
    proxy = await TcpProxy.forUrl(database.url);
  });
  after(async () => {
    await proxy.close();
    await database.drop();
  });

  test('notices the silence through its heartbeat and listens again once traffic passes', async () => {
    const logs = captureLogs('info');
    const received: string[] = [];
    let reconnected = 0;
    const connection = new ListenConnection({
      connectionString: proxy.proxied(database.url),
      channels: ['blackhole_test'],
      applicationName: 'weft-blackhole-listen-test',
      onNotification: (_channel, payload) => received.push(payload ?? ''),
      onReconnected: () => reconnected++,
      logger: logs.logger,
      retryMs: 100,
      maxRetryMs: 200,
      heartbeatMs: 200,
      heartbeatTimeoutMs: 300,
    });
    await connection.start();
    try {
      await database.pool.query(`NOTIFY blackhole_test, 'before'`);
      await eventually(() => Promise.resolve(received.includes('before')), 2000);
      await proxy.blackhole();
      // Without traffic of its own the connection would never learn that nothing arrives any more.
      await eventually(() => Promise.resolve(logs.messages(/LISTEN connection lost/).length > 0), 3000);
      await proxy.pass();
      await eventually(() => Promise.resolve(reconnected > 0), 5000);
      await database.pool.query(`NOTIFY blackhole_test, 'after'`);
      await eventually(() => Promise.resolve(received.includes('after')), 2000);
    } finally {
      await connection.close();
    }
  });
});
