import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/platform/config/index.js';
import { runServices } from '../../src/runtime.js';
import { createEmptyDatabase } from '../helpers/database.js';
import { captureLogs } from '../helpers/log-capture.js';

describe('the records scrape listener (RECORDS_METRICS_PORT)', () => {
  test('serves GET /metrics without a token on its own port, and only that; the main port still wants one', async () => {
    const database = await createEmptyDatabase();
    const config = loadConfig({
      WEFT_DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'weft-scrape-')),
      RECORDS_DATABASE_URL: database.url,
      RECORDS_PORT: '0',
      RECORDS_METRICS_PORT: '0',
      RECORDS_METRICS_HOST: '127.0.0.1',
    });
    const logs = captureLogs('warn');
    const services = await runServices(config, ['records'], logs.logger);
    try {
      // Every authenticated route names its operation for requiredScopes (see scoped-operations.ts).
      assert.deepEqual(logs.messages(/no scoped operation/), []);
      const scrapeUrl = services.scrapeUrls.records ?? '';
      assert.match(scrapeUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(scrapeUrl, new URL(services.urls.records ?? '').origin);
      const scraped = await fetch(`${scrapeUrl}/metrics`);
      assert.equal(scraped.status, 200);
      assert.match(scraped.headers.get('content-type') ?? '', /text\/plain/);
      const text = await scraped.text();
      assert.match(text, /process_cpu_user_seconds_total\{service="records"\}/);
      assert.match(text, /records_operations_total|http_requests_total/);
      for (const other of ['/api/metrics', '/api/openapi.json', '/'])
        assert.equal((await fetch(`${scrapeUrl}${other}`)).status, 404, other);
      assert.equal((await fetch(`${scrapeUrl}/metrics`, { method: 'POST' })).status, 404);
      const main = await fetch(`${services.urls.records}/metrics`);
      assert.equal(main.status, 401);
      assert.equal(((await main.json()) as { code: string }).code, 'AUTH_INVALID_TOKEN');
    } finally {
      await services.stop();
      await database.drop();
    }
  });

  test('is off when RECORDS_METRICS_PORT is unset', () => {
    const config = loadConfig({ RECORDS_METRICS_HOST: '0.0.0.0' });
    assert.equal(config.records.metricsListener, undefined);
    assert.deepEqual(loadConfig({ RECORDS_METRICS_PORT: '9464' }).records.metricsListener, {
      host: '127.0.0.1',
      port: 9464,
    });
  });
});
