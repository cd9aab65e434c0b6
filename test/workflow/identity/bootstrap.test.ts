import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../../src/platform/config/index.js';
import { bootstrapWorkflow } from '../../../src/workflow/identity/bootstrap.js';
import { createMigratedDatabase, type TestDatabase } from '../../helpers/database.js';
import { captureLogs } from '../../helpers/log-capture.js';
import { startTestWorkflow } from '../../helpers/workflow.js';

const admin = {
  WORKFLOW_BOOTSTRAP_ADMIN_EMAIL: 'boot@example.com',
  WORKFLOW_BOOTSTRAP_ADMIN_PASSWORD: 'boot password 1',
};

async function withDatabase(work: (database: TestDatabase) => Promise<void>): Promise<void> {
  const database = await createMigratedDatabase('workflow');
  try {
    await work(database);
  } finally {
    await database.drop();
  }
}

async function bootstrap(database: TestDatabase, env: Record<string, string>) {
  const logs = captureLogs('info');
  const outcome = await bootstrapWorkflow(database.pool, loadConfig(env).workflow, logs.logger);
  return { outcome, logs };
}

async function userCount(database: TestDatabase): Promise<number> {
  const { rows } = await database.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM users');
  return rows[0]?.n ?? -1;
}

describe('bootstrap (the spec table)', () => {
  test('no users + both variables: creates an internal PlatformAdmin and logs a prominent warning; the admin can log in', () =>
    withDatabase(async (database) => {
      const { outcome, logs } = await bootstrap(database, admin);
      assert.equal(outcome, 'admin-created');
      const { rows } = await database.pool.query('SELECT email, auth_provider, global_roles FROM users');
      assert.deepEqual(rows, [
        { email: 'boot@example.com', auth_provider: 'internal', global_roles: ['PlatformAdmin'] },
      ]);
      const warnings = logs.messages(/BOOTSTRAP/);
      assert.equal(warnings.length, 1);
      assert.equal(warnings[0]?.level, 40);
      assert.ok(!logs.text().includes('boot password 1'), 'the password is not logged');
      const workflow = await startTestWorkflow({ database });
      try {
        await workflow.login('boot@example.com', 'boot password 1');
      } finally {
        await workflow.close();
      }
    }));

  test('any user exists: no-op, even with the variables set', () =>
    withDatabase(async (database) => {
      await database.pool.query(
        `INSERT INTO users (email, auth_provider) VALUES ('existing@example.com', 'external')`,
      );
      const { outcome, logs } = await bootstrap(database, admin);
      assert.equal(outcome, 'users-exist');
      assert.equal(await userCount(database), 1);
      assert.equal(logs.messages(/BOOTSTRAP|no users/).length, 0);
    }));

  test('idempotent: running twice creates one admin', () =>
    withDatabase(async (database) => {
      assert.equal((await bootstrap(database, admin)).outcome, 'admin-created');
      assert.equal((await bootstrap(database, admin)).outcome, 'users-exist');
      assert.equal(await userCount(database), 1);
    }));

  test('two instances bootstrapping at the same moment create one admin', () =>
    withDatabase(async (database) => {
      const outcomes = await Promise.all([bootstrap(database, admin), bootstrap(database, admin)]);
      assert.deepEqual(outcomes.map((o) => o.outcome).sort(), ['admin-created', 'users-exist']);
      assert.equal(await userCount(database), 1);
    }));

  test('no users, variables unset, WORKFLOW_TENANT_ISOLATION=single: refuses to start', () =>
    withDatabase(async (database) => {
      await assert.rejects(
        bootstrap(database, { WORKFLOW_TENANT_ISOLATION: 'single' }),
        /WORKFLOW_TENANT_ISOLATION=single.*WORKFLOW_BOOTSTRAP_ADMIN_EMAIL/s,
      );
      assert.equal(await userCount(database), 0);
    }));

  test('no users, only one of the two variables set, single isolation: still refuses', () =>
    withDatabase(async (database) => {
      await assert.rejects(
        bootstrap(database, {
          WORKFLOW_TENANT_ISOLATION: 'single',
          WORKFLOW_BOOTSTRAP_ADMIN_EMAIL: 'half@example.com',
        }),
        /WORKFLOW_TENANT_ISOLATION=single/,
      );
    }));

  test('no users, variables unset, other isolation: starts and warns that no users exist', () =>
    withDatabase(async (database) => {
      const { outcome, logs } = await bootstrap(database, {});
      assert.equal(outcome, 'no-users');
      const warnings = logs.messages(/no users exist/);
      assert.equal(warnings.length, 1);
      assert.equal(warnings[0]?.level, 40);
      assert.equal(await userCount(database), 0);
    }));

  test('WORKFLOW_BOOTSTRAP_ADMIN_ORG_SLUG is ignored with a deprecation warning, and startup proceeds', () =>
    withDatabase(async (database) => {
      const { outcome, logs } = await bootstrap(database, {
        ...admin,
        WORKFLOW_BOOTSTRAP_ADMIN_ORG_SLUG: 'legacy',
      });
      assert.equal(outcome, 'admin-created');
      assert.equal(logs.messages(/WORKFLOW_BOOTSTRAP_ADMIN_ORG_SLUG is deprecated/).length, 1);
      const { rows } = await database.pool.query('SELECT count(*)::int AS n FROM orgs');
      assert.deepEqual(rows, [{ n: 0 }], 'no organisation is created from the slug');
    }));
});
