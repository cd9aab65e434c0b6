import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { asRuntimeLogin, runtimeLogins } from '../helpers/runtime-login.js';
import { startTestWorkflow, type TestWorkflow } from '../helpers/workflow.js';

/**
 * The workflow runtime login, tried in SQL: it owns nothing, cannot bypass anything, and may only
 * append to the execution history (retention runs as the owner: housekeeping.test.ts purges through
 * the service while its requests run as this login).
 */
describe('workflow database roles: the runtime login', () => {
  let workflow: TestWorkflow;
  let runtime: pg.Client;

  before(async () => {
    workflow = await startTestWorkflow();
    runtime = new pg.Client({ connectionString: asRuntimeLogin(workflow.database.url, 'workflow') });
    await runtime.connect();
  });
  after(async () => {
    await runtime?.end();
    await workflow?.close();
  });

  test('owns no table, is no superuser and is a member of weft_workflow_app', async () => {
    const { rows } = await workflow.database.pool.query<{
      rolsuper: boolean;
      rolbypassrls: boolean;
      owns: number;
      member: boolean;
    }>(
      `SELECT rolsuper, rolbypassrls, (SELECT count(*)::int FROM pg_class WHERE relowner = r.oid) AS owns,
              pg_has_role(r.oid, 'weft_workflow_app', 'MEMBER') AS member
       FROM pg_roles r WHERE rolname = $1`,
      [runtimeLogins.workflow.user],
    );
    assert.deepEqual(rows[0], { rolsuper: false, rolbypassrls: false, owns: 0, member: true });
  });

  test('the execution history is append-only for it; the migration ledger is not its business', async () => {
    const { rows } = await runtime.query<{ insert: boolean; select: boolean }>(
      `SELECT has_table_privilege('process_history', 'INSERT') AS insert,
              has_table_privilege('process_history', 'SELECT') AS select`,
    );
    assert.deepEqual(rows[0], { insert: true, select: true });
    for (const sql of [
      `UPDATE process_history SET element_id = 'forged'`,
      'DELETE FROM process_history',
      'TRUNCATE process_history',
      'SELECT * FROM weft_migrations',
    ])
      await assert.rejects(runtime.query(sql), { code: '42501' }, sql);
  });
});
