import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/platform/config/index.js';
import { createRecordsService, type RecordsService } from '../../src/records/index.js';
import { createMigratedDatabase, type TestDatabase } from '../helpers/database.js';
import { captureLogs } from '../helpers/log-capture.js';

describe('records platform endpoints', () => {
  let database: TestDatabase;
  let records: RecordsService;
  before(async () => {
    database = await createMigratedDatabase('records');
    const config = loadConfig({ WEFT_DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'weft-records-')) });
    records = await createRecordsService({ config, pool: database.pool, logger: captureLogs('warn').logger });
  });
  after(async () => {
    await records.close();
    await database.drop();
  });

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

  test('/api/openapi.json is an OpenAPI 3 document and /api/metrics is Prometheus text', async () => {
    const openapi = await records.app.inject({ method: 'GET', url: '/api/openapi.json' });
    assert.equal(openapi.statusCode, 200);
    assert.match((openapi.json() as { openapi: string }).openapi, /^3\./);
    const metrics = await records.app.inject({ method: 'GET', url: '/api/metrics' });
    assert.equal(metrics.statusCode, 200);
    assert.match(metrics.body, /http_requests_total/);
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
