import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/platform/config/index.js';
import { runServices } from '../../src/runtime.js';
import { createEmptyDatabase } from '../helpers/database.js';
import { captureLogs } from '../helpers/log-capture.js';

async function start(env: Record<string, string>) {
  const database = await createEmptyDatabase();
  const config = loadConfig({
    WEFT_DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'weft-startup-')),
    WORKFLOW_DATABASE_URL: database.url,
    WORKFLOW_PORT: '0',
    ...env,
  });
  const logs = captureLogs('info');
  return { database, logs, running: runServices(config, ['workflow'], logs.logger) };
}

describe('starting the workflow service (migrations, bootstrap, then the listener)', () => {
  test('WORKFLOW_TENANT_ISOLATION=single with no users and no bootstrap variables refuses to start, and never listens', async () => {
    const { database, logs, running } = await start({ WORKFLOW_TENANT_ISOLATION: 'single' });
    try {
      await assert.rejects(running, /WORKFLOW_TENANT_ISOLATION=single/);
      assert.equal(logs.messages(/listening/).length, 0);
    } finally {
      await database.drop();
    }
  });

  test('with the bootstrap variables it migrates, creates the admin, warns, and serves a login over HTTP', async () => {
    const { database, logs, running } = await start({
      WORKFLOW_BOOTSTRAP_ADMIN_EMAIL: 'first@example.com',
      WORKFLOW_BOOTSTRAP_ADMIN_PASSWORD: 'first password',
      WORKFLOW_TENANT_ISOLATION: 'single',
      WORKFLOW_BOOTSTRAP_ADMIN_ORG_SLUG: 'old-style',
    });
    const services = await running;
    try {
      const login = await fetch(`${services.urls.workflow}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'first@example.com', password: 'first password' }),
      });
      assert.equal(login.status, 200);
      assert.equal(logs.messages(/\*\*\* BOOTSTRAP/).length, 1);
      assert.equal(logs.messages(/WORKFLOW_BOOTSTRAP_ADMIN_ORG_SLUG is deprecated/).length, 1);
      assert.equal(logs.messages(/migration applied/).length > 0, true);
      assert.ok(!logs.text().includes('first password'));
    } finally {
      await services.stop();
      await database.drop();
    }
  });
});
