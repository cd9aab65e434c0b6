import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { ColdPartitions } from '../../../src/records/archive/cold-partitions.js';
import { sessionSettingsSql } from '../../../src/records/access/access-session.js';
import { asRecordsRuntimeLogin, recordsRuntimeLogin } from '../../helpers/runtime-login.js';
import { startRecordsApp, type RecordsTestApp } from '../support/records-app.js';

/**
 * Layer 7 and the database roles, tried in SQL as an attacker holding the service's own runtime
 * login would: with an actor's session settings, or none, against every table that holds or
 * describes record data, and against the audit log's append-only rule.
 */

const leadsPath = 'acme/sales/crm/leads/v1';
const leadsTable = 'rec_acme.sales__crm__leads__v1';
const leadsHistory = 'hist_acme.sales__crm__leads__v1';
const leadsYaml = `
apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: leads-v1 }
spec:
  org: acme
  app: sales
  domain: crm
  object: leads
  version: v1
  timeMachine: true
  fields:
    - { name: title, type: string, required: true }
    - { name: region, type: string, required: true, filterable: true }
    - { name: margin, type: number }
  access:
    roles: { create: [rep, admin], read: [rep, admin, auditor], update: [rep, admin], delete: [admin] }
    rowFilter:
      - { role: rep, condition: "region = (SELECT current_setting('weft.attributes')::jsonb->>'region')" }
    fieldAccess:
      - { field: margin, read: [admin], write: [admin] }
`;

type Actor = { actor_id: string; roles: string[]; attributes: Record<string, unknown> };
const euRep: Actor = { actor_id: 'eva', roles: ['rep'], attributes: { region: 'EU' } };
const auditor: Actor = { actor_id: 'aud', roles: ['auditor'], attributes: {} };
const admin: Actor = { actor_id: 'root', roles: ['admin'], attributes: {} };

describe('records database roles: the runtime login and layer 7 in SQL', () => {
  let app: RecordsTestApp;
  let runtime: pg.Pool;
  const ids: Record<'eu' | 'us', string> = { eu: '', us: '' };

  /** Runs `sql` in one transaction as the runtime login, optionally as an actor's access session. */
  async function asRuntime<R extends pg.QueryResultRow>(
    sql: string,
    options: { actor?: Actor; role?: boolean; values?: unknown[] } = {},
  ): Promise<R[]> {
    const client = await runtime.connect();
    try {
      await client.query('BEGIN');
      if (options.actor)
        await client.query(sessionSettingsSql(options.actor, { role: options.role ?? true }));
      const { rows } = await client.query<R>(sql, options.values);
      return rows;
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
    }
  }

  const count = async (sql: string, options: Parameters<typeof asRuntime>[1] = {}) =>
    (await asRuntime<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, options))[0]?.n;

  before(async () => {
    app = await startRecordsApp({}, { seedExamples: false, resources: { 'leads.yaml': leadsYaml } });
    runtime = new pg.Pool({ connectionString: asRecordsRuntimeLogin(app.database.url), max: 2 });
    for (const region of ['EU', 'US'] as const) {
      const created = await app.call('POST', `/api/${leadsPath}`, {
        body: { title: `${region} deal`, region, margin: 0.4 },
      });
      assert.equal(created.statusCode, 201, created.body);
      const record = created.json<{ data: { id: string } }>().data;
      const updated = await app.call('PATCH', `/api/${leadsPath}/${record.id}`, {
        body: { version: 1, margin: 0.5 },
      });
      assert.equal(updated.statusCode, 200, updated.body);
      ids[region === 'EU' ? 'eu' : 'us'] = record.id;
    }
  });
  after(async () => {
    await runtime?.end();
    await app?.close();
  });

  test('the runtime login owns nothing, is no superuser, cannot bypass RLS, and may become the request role', async () => {
    const { rows } = await app.database.pool.query<{
      rolsuper: boolean;
      rolbypassrls: boolean;
      owns: number;
      app: boolean;
      api: boolean;
    }>(
      `SELECT rolsuper, rolbypassrls,
         (SELECT count(*)::int FROM pg_class WHERE relowner = r.oid) AS owns,
         pg_has_role(r.oid, 'weft_records_app', 'MEMBER') AS app,
         pg_has_role(r.oid, 'weft_records_api', 'MEMBER') AS api
       FROM pg_roles r WHERE rolname = $1`,
      [recordsRuntimeLogin.user],
    );
    assert.deepEqual(rows[0], { rolsuper: false, rolbypassrls: false, owns: 0, app: true, api: true });
  });

  test('history: an actor session reads only the history of records it may read, as the runtime login or the request role', async () => {
    assert.equal(await count(`${leadsHistory} WHERE state->>'region' = 'US'`, { actor: euRep }), 0);
    assert.equal(
      await count(`${leadsHistory} WHERE state->>'region' = 'US'`, { actor: euRep, role: false }),
      0,
    );
    assert.equal(await count(`${leadsHistory} WHERE state->>'region' = 'EU'`, { actor: euRep }), 2);
    assert.equal(await count(leadsHistory), 0, 'no actor, no rows');
    assert.equal(await count(leadsHistory, { actor: admin }), 4);
  });

  test('history and audit are append-only for the runtime login and the request role', async () => {
    for (const role of [false, true])
      for (const sql of [
        `UPDATE ${leadsHistory} SET state = state || '{"margin": 9}'`,
        `DELETE FROM ${leadsHistory}`,
        `TRUNCATE ${leadsHistory}`,
        `INSERT INTO ${leadsHistory} (record_id, "timestamp", actor, operation, state) VALUES ('${ids.eu}', now(), 'x', 'UPDATE', '{}')`,
        `UPDATE records.audit_events SET actor = 'mallory'`,
        `DELETE FROM records.audit_events`,
        `TRUNCATE records.audit_events`,
        `DELETE FROM ${leadsTable}`,
      ])
        await assert.rejects(
          asRuntime(sql, { actor: euRep, role }),
          { code: '42501' },
          `${sql} (role ${role})`,
        );
  });

  test('nobody but the owner appends to the audit log: a forged, correctly hashed event is refused', async () => {
    const forged = `SELECT records.append_audit('${leadsPath}', '${ids.eu}', 'UPDATE', 'mallory', now(), 3, NULL, '{"margin": 0}')`;
    for (const role of [false, true]) {
      await assert.rejects(asRuntime(forged, { actor: euRep, role }), { code: '42501' });
      await assert.rejects(
        asRuntime(
          `INSERT INTO records.audit_events ("timestamp", actor, schema_path, entity_id, operation, version, previous_hash, hash)
           VALUES (now(), 'mallory', '${leadsPath}', '${ids.eu}', 'UPDATE', 3, '', '')`,
          { actor: euRep, role },
        ),
        { code: '42501' },
      );
    }
    const { rows } = await app.database.pool.query<{ public: boolean }>(
      `SELECT has_function_privilege('public', 'records.append_audit(text, uuid, text, text, timestamptz, integer, jsonb, jsonb)', 'EXECUTE') AS public`,
    );
    assert.equal(rows[0]?.public, false);
  });

  test('verify sees every history row of a guarded record, though requests run under row-level security', async () => {
    for (const id of [ids.eu, ids.us]) {
      const verified = await app.call('POST', '/api/platform/audit/verify', {
        body: { schema: leadsPath, id },
      });
      assert.equal(verified.statusCode, 200, verified.body);
      const result = verified.json<{ data: { valid: boolean; events: number } }>().data;
      assert.deepEqual([result.valid, result.events], [true, 2], verified.body);
    }
  });

  test('audit events: an actor reads the events of records it may read; the auditor reads all', async () => {
    const events = (actor?: Actor) =>
      count(`records.audit_events WHERE schema_path = '${leadsPath}'`, actor ? { actor } : {});
    assert.equal(await count(`records.audit_events WHERE entity_id = '${ids.us}'`, { actor: euRep }), 0);
    assert.equal(await events(euRep), 2);
    assert.equal(await events(auditor), 4);
    assert.equal(await events(), 0, 'no actor, no events of a guarded schema');
  });

  test('cold storage: archived copies and history follow the schema read rule on the archived state', async () => {
    await new ColdPartitions(app.database.pool).ensure(new Date());
    for (const [region, id] of [
      ['EU', '6b8d4b53-2d7c-4b7e-9f35-000000000001'],
      ['US', '6b8d4b53-2d7c-4b7e-9f35-000000000002'],
    ] as const) {
      const at = new Date().toISOString();
      const state = JSON.stringify({
        ...{
          id,
          version: 1,
          created_at: at,
          created_by: 'x',
          updated_at: at,
          updated_by: 'x',
          deleted_at: null,
        },
        ...{ title: 'cold', region, margin: 0.9 },
      });
      await app.database.pool.query(
        `INSERT INTO records_archive.records (schema_path, record_id, version, archived_at, record)
         VALUES ($1, $2, 1, now(), $3)`,
        [leadsPath, id, state],
      );
      await app.database.pool.query(
        `INSERT INTO records_archive.history (schema_path, record_id, event_id, "timestamp", actor, operation, state, archived_at)
         VALUES ($1, $2, nextval('records.audit_events_event_id_seq'), now(), 'x', 'CREATE', $3, now())`,
        [leadsPath, id, state],
      );
    }
    for (const table of ['records_archive.records', 'records_archive.history']) {
      const column = table.endsWith('records') ? 'record' : 'state';
      const where = `${table} WHERE schema_path = '${leadsPath}'`;
      assert.equal(
        await count(`${where} AND ${column}->>'region' = 'US'`, { actor: euRep, role: false }),
        0,
        table,
      );
      assert.equal(
        await count(`${where} AND ${column}->>'region' = 'EU'`, { actor: euRep, role: false }),
        1,
        table,
      );
      assert.equal(await count(where, { actor: auditor, role: false }), 2, table);
      assert.equal(await count(where), 0, `${table}: no actor, no rows`);
      await assert.rejects(asRuntime(`DELETE FROM ${table}`, { actor: auditor, role: false }), {
        code: '42501',
      });
    }
  });

  test('snapshots: the snapshot table carries the schema read rule', async () => {
    const requested = await app.call('POST', `/api/${leadsPath}/history/snapshot`, {
      body: { at: new Date().toISOString(), reason: 'quarter close' },
    });
    assert.equal(requested.statusCode, 202, requested.body);
    await app.service.snapshots.runPending();
    const id = requested.json<{ data: { snapshot_id: string } }>().data.snapshot_id;
    const table = `records_snapshots.s_${id.replace(/-/g, '')}`;
    assert.equal(await count(table, { actor: admin }), 4, 'two hot and two archived records');
    assert.equal(await count(`${table} WHERE region = 'US'`, { actor: euRep }), 0);
    assert.equal(
      await count(`${table} WHERE region = 'EU'`, { actor: euRep, role: false }),
      2,
      'hot and archived',
    );
    assert.equal(await count(table), 0, 'no actor, no rows');
  });

  test('snapshots made before their row security get it at start', async () => {
    const requested = await app.call('POST', `/api/${leadsPath}/history/snapshot`, {
      body: { at: new Date().toISOString(), reason: 'before the upgrade' },
    });
    await app.service.snapshots.runPending();
    const id = requested.json<{ data: { snapshot_id: string } }>().data.snapshot_id;
    const table = `records_snapshots.s_${id.replace(/-/g, '')}`;
    // As a table of an earlier version: no policy, row security off.
    await app.database.pool.query(
      `DROP POLICY weft_select ON ${table}; ALTER TABLE ${table} DISABLE ROW LEVEL SECURITY`,
    );
    assert.equal(await count(`${table} WHERE region = 'US'`, { actor: euRep }), 2, 'unprotected');
    assert.equal(await app.service.snapshots.secureEarlierSnapshots(), 1);
    assert.equal(await count(`${table} WHERE region = 'US'`, { actor: euRep }), 0);
    assert.equal(await app.service.snapshots.secureEarlierSnapshots(), 0, 'nothing left to do');
  });

  test("idempotency keys: a request session sees only its own actor's stored responses", async () => {
    await app.database.pool.query(
      `INSERT INTO records.idempotency_keys (actor_id, key, request_hash, response_status, response_body, expires_at)
       VALUES ('someone-else', 'k1', 'h', 201, '{"margin": 0.4}', now() + interval '1 hour'),
              ('eva', 'k2', 'h', 201, '{}', now() + interval '1 hour')`,
    );
    assert.equal(await count('records.idempotency_keys', { actor: euRep }), 1);
    await assert.rejects(
      asRuntime(
        `INSERT INTO records.idempotency_keys (actor_id, key, request_hash, expires_at) VALUES ('someone-else', 'k3', 'h', now())`,
        { actor: euRep },
      ),
      { code: '42501' },
    );
  });

  test('the runtime login cannot read credentials or service secrets, nor change resource documents', async () => {
    for (const sql of [
      'SELECT * FROM records.service_secrets',
      `UPDATE records.resources SET document = '{}'`,
      `DELETE FROM records.role_bindings`,
    ])
      await assert.rejects(asRuntime(sql), { code: '42501' }, sql);
    await assert.rejects(asRuntime('SELECT * FROM records.api_keys', { actor: euRep }), { code: '42501' });
  });
});
