import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RecordsService } from '../../src/records/index.js';
import { startRecordsApp, type RecordsTestApp } from './support/records-app.js';

describe('records platform endpoints', () => {
  let app: RecordsTestApp;
  let records: RecordsService;
  before(async () => {
    app = await startRecordsApp();
    records = app.service;
  });
  after(() => app.close());

  test('/api/healthz and /api/readyz answer 200 when the database is up', async () => {
    for (const url of ['/api/healthz', '/api/readyz']) {
      const response = await records.app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 200, url);
    }
  });

  test('/api/version reports client and server versions, build date and commit', async () => {
    const response = await records.app.inject({ method: 'GET', url: '/api/version' });
    assert.equal(response.statusCode, 200);
    const body = response.json() as Record<string, string>;
    assert.deepEqual(Object.keys(body).sort(), [
      'build_date',
      'client_version',
      'git_commit',
      'server_version',
    ]);
    assert.match(body.server_version ?? '', /^\d+\.\d+\.\d+/);
    assert.ok(!Number.isNaN(Date.parse(body.build_date ?? '')));
  });

  test('only health, readiness and version answer without a token: /api/metrics and /api/openapi.json are 401', async () => {
    for (const url of ['/api/healthz', '/api/readyz', '/api/version'])
      assert.equal((await records.app.inject({ method: 'GET', url })).statusCode, 200, url);
    for (const url of ['/api/metrics', '/api/openapi.json', '/api']) {
      const response = await records.app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 401, url);
      assert.equal((response.json() as { code: string }).code, 'AUTH_INVALID_TOKEN', url);
    }
  });

  test('/api/openapi.json is an OpenAPI 3 document for any authenticated actor', async () => {
    const openapi = await app.call('GET', '/api/openapi.json', { actor: 'bob', roles: ['viewer'] });
    assert.equal(openapi.statusCode, 200);
    assert.match((openapi.json() as { openapi: string }).openapi, /^3\./);
  });

  test('/api/metrics is Prometheus text for platform-metrics and platform-admin, 403 RBAC_DENIED for other roles', async () => {
    for (const roles of [['platform-metrics'], ['platform-admin']]) {
      const metrics = await app.call('GET', '/api/metrics', { actor: 'prometheus', roles });
      assert.equal(metrics.statusCode, 200, roles[0]);
      assert.match(String(metrics.headers['content-type']), /text\/plain/);
      assert.match(metrics.body, /http_requests_total/);
    }
    const denied = await app.call('GET', '/api/metrics', { actor: 'bob', roles: ['admin'] });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual((denied.json() as { code: string; details: unknown }).details, {
      operation: 'read the metrics',
      role: 'platform-metrics',
    });
  });

  test('errors use the records envelope with a requestId', async () => {
    const response = await records.app.inject({
      method: 'GET',
      url: '/api/nothing-here',
      headers: { 'x-request-id': 'rq-1' },
    });
    assert.equal(response.statusCode, 404);
    assert.deepEqual(response.json(), {
      code: 'NOT_FOUND',
      message: 'No route GET /api/nothing-here',
      requestId: 'rq-1',
      details: {},
    });
    assert.equal(response.headers['x-request-id'], 'rq-1');
  });
});
