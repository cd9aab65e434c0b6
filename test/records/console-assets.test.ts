import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { captureLogs, type CapturedLogs } from '../helpers/log-capture.js';
import { startRecordsApp, type RecordsTestApp } from './support/records-app.js';

const built = existsSync(fileURLToPath(new URL('../../dist/console/records/index.html', import.meta.url)));

describe(
  'records console assets and the auth audit hook',
  { skip: !built && 'run `npm run build` first' },
  () => {
    let app: RecordsTestApp;
    let logs: CapturedLogs;

    before(async () => {
      logs = captureLogs('warn');
      app = await startRecordsApp({}, { logger: logs.logger, seedExamples: false });
    });
    after(async () => {
      await app?.close();
    });

    test('GET /console/ and one of its assets answer 200 and log no error (the hook has no decision to record)', async () => {
      const index = await app.service.app.inject({ method: 'GET', url: '/console/' });
      assert.equal(index.statusCode, 200);
      const asset = /src="\/console\/(assets\/[^"]+\.js)"/.exec(index.body)?.[1];
      assert.ok(asset, 'index.html names a script asset');
      const script = await app.service.app.inject({ method: 'GET', url: `/console/${asset}` });
      assert.equal(script.statusCode, 200);
      const missing = await app.service.app.inject({ method: 'GET', url: '/console/assets/none.js' });
      assert.ok(missing.statusCode < 500, `a missing asset is not a server error (${missing.statusCode})`);
      const errors = logs.lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
      assert.deepEqual(errors, []);
    });
  },
);
