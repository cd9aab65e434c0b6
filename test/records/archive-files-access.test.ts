import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import type { LightMyRequestResponse } from 'fastify';
import { ArchiveJob } from '../../src/records/archive/archive-job.js';
import { captureLogs } from '../helpers/log-capture.js';
import { MovableClock } from './support/auth-fixtures.js';
import { startRecordsApp, testJwtSecret, type RecordsTestApp } from './support/records-app.js';

/**
 * The access layers on the archive endpoints for records that live in Parquet file sets (not in
 * PostgreSQL staging): route roles (layer 1), record read rules (2), the row filter reading the
 * caller's `weft.*` settings (4), the field read filter (5), and unarchive through the write
 * layers (field write filter 6, RLS 7) after the record is brought back from its file.
 */

const casesPath = 'acme/support/desk/filecases/v1';
const casesTable = 'rec_acme.support__desk__filecases__v1';
const casesYaml = `apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: filecases-v1 }
spec:
  org: acme
  app: support
  domain: desk
  object: filecases
  version: v1
  timeMachine: true
  fields:
    - { name: subject, type: string, required: true }
    - { name: region, type: string, required: true, filterable: true }
    - { name: secret_note, type: string, filterable: true }
    - { name: budget, type: number }
    - { name: status, type: enum, enum: [open, closed, legal_hold], default: open, filterable: true }
  access:
    roles: { create: [agent, admin], read: [agent, admin, clerk, viewer], update: [agent, admin, clerk], delete: [admin] }
    abac:
      - { operation: read, condition: 'record.status != "legal_hold" || "admin" in actor.roles', message: Legal holds are for admins }
    rowFilter:
      - { role: agent, condition: "region = (SELECT current_setting('weft.attributes')::jsonb->>'region')" }
    fieldAccess:
      - { field: secret_note, read: [admin] }
      - { field: budget, write: [admin] }
  archive:
    afterDays: 30
`;

const actors = {
  admin: { roles: ['admin'], attributes: {} },
  ann: { roles: ['agent'], attributes: { region: 'north' } },
  sid: { roles: ['agent'], attributes: { region: 'south' } },
  clerk: { roles: ['clerk'], attributes: {} },
  viewer: { roles: ['viewer'], attributes: {} },
  stranger: { roles: ['guest'], attributes: {} },
} as const;
type Actor = keyof typeof actors;
type Data<T> = { data: T };
type Case = Record<string, unknown> & { id: string; version: number };

const day = 86_400_000;
const secret = 'zebra-password';

function codeOf(response: LightMyRequestResponse): string {
  return response.json<{ code: string }>().code;
}

describe('records access: archive reads and unarchive of records in files', () => {
  let app: RecordsTestApp;
  const clock = new MovableClock();
  let job: ArchiveJob;
  /** Every response body an agent received: a hidden value must never be in one. */
  const agentBodies: string[] = [];
  const as = async (actor: Actor, method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) => {
    const token = await new SignJWT({ roles: [...actors[actor].roles], attributes: actors[actor].attributes })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(actor)
      .setIssuer('https://issuer.test')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(testJwtSecret));
    const response = await app.service.app.inject({
      method,
      url: `/api/${url}`,
      headers: { authorization: `Bearer ${token}` },
      ...(body !== undefined ? { payload: body as object } : {}),
    });
    if (actor !== 'admin') agentBodies.push(response.body);
    return response;
  };
  const create = async (body: Record<string, unknown>) => {
    const response = await as('admin', 'POST', casesPath, body);
    assert.equal(response.statusCode, 201, response.body);
    return response.json<Data<Case>>().data;
  };
  const archiveDue = async () => {
    clock.advance(31 * day);
    return job.runOnce();
  };
  const hotRows = async (id: string) =>
    Number(
      (
        await app.database.pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM ${casesTable} WHERE id = $1`,
          [id],
        )
      ).rows[0]?.n,
    );
  const count = async (sql: string) =>
    Number((await app.database.pool.query<{ n: string }>(sql, [casesPath])).rows[0]?.n);
  /** Copies staged in PostgreSQL (none: the records read here live in files). */
  const stagedCopies = () =>
    count(`SELECT count(*) AS n FROM records_archive.records WHERE schema_path = $1`);
  /** Records in the schema's file sets, superseded copies included. */
  const fileRecords = () =>
    count(`SELECT coalesce(sum(record_count), 0) AS n FROM records_archive.files WHERE schema_path = $1`);
  /** Current copies in files (not superseded). */
  const currentFileCopies = async () =>
    (await fileRecords()) -
    (await count(
      `SELECT count(*) AS n FROM records_archive.superseded_copies s JOIN records_archive.files f USING (file_set_id) WHERE f.schema_path = $1`,
    ));
  const archived = (actor: Actor, id: string, query = '') =>
    as(actor, 'GET', `${casesPath}/${id}/archive${query}`);
  const unarchive = (actor: Actor, id: string) =>
    as(actor, 'POST', `${casesPath}/${id}/unarchive`, { reason: 'needed again' });

  // north: north, changed once (two versions); south: south; held: north, legal hold;
  // funded: north, with a budget only admins may write; back: north, archived then brought back
  // and moved south (its stale archived copy is north).
  let ids: Record<'north' | 'south' | 'held' | 'funded' | 'back', string>;
  before(async () => {
    app = await startRecordsApp({}, { resources: { 'cases.yaml': casesYaml } });
    // Only this test's job moves records (the service's own would export restaged records at its tick).
    await app.service.archive.close();
    job = new ArchiveJob({
      pool: app.database.pool,
      registry: app.service.registry,
      clock,
      logger: captureLogs('fatal').logger,
      files: app.service.archiveFiles,
      fileSetSize: 2,
    });
    const north = await create({ subject: 'Printer jam', region: 'north', secret_note: secret });
    const patched = await as('admin', 'PATCH', `${casesPath}/${north.id}`, {
      version: 1,
      subject: 'Printer jam again',
      secret_note: `${secret}-2`,
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const south = await create({ subject: 'Printer south', region: 'south', secret_note: 'ocelot' });
    const held = await create({ subject: 'Printer held', region: 'north', status: 'legal_hold' });
    const funded = await create({ subject: 'Printer funded', region: 'north', budget: 500 });
    const back = await create({ subject: 'Printer back', region: 'north', secret_note: secret });
    assert.equal(await archiveDue(), 5);
    assert.equal(await stagedCopies(), 0, 'every archived record is in files');
    assert.equal(await fileRecords(), 5);
    assert.equal((await unarchive('admin', back.id)).statusCode, 200);
    const moved = await as('admin', 'PATCH', `${casesPath}/${back.id}`, { version: 2, region: 'south' });
    assert.equal(moved.statusCode, 200, moved.body);
    ids = { north: north.id, south: south.id, held: held.id, funded: funded.id, back: back.id };
  });
  after(() => app?.close());

  test('route roles: no read role 403 on both reads, no update role 403 on unarchive; nothing moves', async () => {
    const before = await currentFileCopies();
    const stagedBefore = await stagedCopies();
    for (const response of [
      await archived('stranger', ids.north),
      await as('stranger', 'POST', `${casesPath}/archive/query`, {}),
      await unarchive('viewer', ids.north),
      await unarchive('stranger', ids.north),
    ]) {
      assert.equal(response.statusCode, 403, response.body);
      assert.equal(codeOf(response), 'RBAC_DENIED');
    }
    assert.equal((await archived('viewer', ids.north)).statusCode, 200);
    assert.equal(await currentFileCopies(), before);
    assert.equal(await stagedCopies(), stagedBefore);
  });

  test('GET archive: hidden fields are null, at every version; the admin sees them', async () => {
    const admin = await archived('admin', ids.north);
    assert.equal(admin.statusCode, 200, admin.body);
    assert.equal(admin.json<Data<Case>>().data.secret_note, `${secret}-2`);
    const ann = await archived('ann', ids.north);
    assert.equal(ann.statusCode, 200, ann.body);
    const record = ann.json<Data<Case>>().data;
    assert.equal(record.subject, 'Printer jam again');
    assert.equal(record.secret_note, null);
    assert.equal(typeof record.archived_at, 'string');
    const first = await archived('ann', ids.north, '?version=1');
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json<Data<Case>>().data.subject, 'Printer jam');
    assert.equal(first.json<Data<Case>>().data.secret_note, null);
  });

  test('GET archive: a record outside the caller’s row filter is 404, a record rule denial 403', async () => {
    const sid = await archived('sid', ids.north);
    assert.equal(sid.statusCode, 404, sid.body);
    assert.equal(codeOf(sid), 'ENTITY_NOT_FOUND');
    assert.equal((await archived('sid', ids.north, '?version=1')).statusCode, 404);
    assert.equal((await archived('sid', ids.south)).statusCode, 200);
    const held = await archived('ann', ids.held);
    assert.equal(held.statusCode, 403, held.body);
    assert.equal(codeOf(held), 'ABAC_DENIED');
    assert.equal((await archived('admin', ids.held)).statusCode, 200);
  });

  test('GET archive: a record back in hot storage is 404 even to a caller RLS hides it from', async () => {
    // Its newest archived copy is north, which ann's row filter admits; the live row is south.
    const ann = await archived('ann', ids.back);
    assert.equal(ann.statusCode, 404, ann.body);
    assert.equal((await archived('admin', ids.back)).statusCode, 404);
  });

  test('archive query: rows outside the row filter are left out; hidden fields null', async () => {
    const where = { field: 'status', op: 'ne', value: 'legal_hold' };
    const ann = await as('ann', 'POST', `${casesPath}/archive/query`, { where });
    assert.equal(ann.statusCode, 200, ann.body);
    const rows = ann.json<Data<Case[]>>().data;
    assert.deepEqual(rows.map((row) => row.id).sort(), [ids.north, ids.funded].sort());
    for (const row of rows) {
      assert.equal(row.region, 'north');
      assert.equal(row.secret_note, null);
      assert.equal(typeof row.archived_at, 'string');
    }
    const sid = await as('sid', 'POST', `${casesPath}/archive/query`, {});
    assert.equal(sid.statusCode, 200, sid.body);
    assert.deepEqual(
      sid.json<Data<Case[]>>().data.map((row) => row.id),
      [ids.south],
    );
    const admin = await as('admin', 'POST', `${casesPath}/archive/query`, {});
    assert.equal(admin.json<Data<Case[]>>().data.length, 4);
    // Through cursors, one row a page: the same rows, the row filter applied on every page.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await as('ann', 'POST', `${casesPath}/archive/query`, {
        where,
        limit: 1,
        ...(cursor ? { cursor } : {}),
      });
      assert.equal(page.statusCode, 200, page.body);
      const body = page.json<Data<Case[]> & { pagination: { cursor: string | null } }>();
      paged.push(...body.data.map((row) => row.id));
      cursor = body.pagination.cursor;
    } while (cursor);
    assert.deepEqual(paged.sort(), [ids.north, ids.funded].sort());
  });

  test('archive query: select of a hidden field is null; filtering on it is 400; one denied row 403', async () => {
    const selected = await as('ann', 'POST', `${casesPath}/archive/query`, {
      where: { field: 'status', op: 'ne', value: 'legal_hold' },
      select: ['subject', 'secret_note'],
    });
    assert.equal(selected.statusCode, 200, selected.body);
    for (const row of selected.json<Data<Record<string, unknown>[]>>().data) {
      assert.deepEqual(Object.keys(row).sort(), ['archived_at', 'secret_note', 'subject']);
      assert.equal(row.secret_note, null);
    }
    const filtered = await as('ann', 'POST', `${casesPath}/archive/query`, {
      where: { field: 'secret_note', op: 'eq', value: `${secret}-2` },
    });
    assert.equal(filtered.statusCode, 400, filtered.body);
    assert.equal(codeOf(filtered), 'VALIDATION_ERROR');
    const all = await as('ann', 'POST', `${casesPath}/archive/query`, {});
    assert.equal(all.statusCode, 403, all.body);
    assert.equal(codeOf(all), 'ABAC_DENIED');
  });

  test('unarchive: outside the row filter 404, record rule 403, restricted field 403; nothing moves', async () => {
    const sid = await unarchive('sid', ids.north);
    assert.equal(sid.statusCode, 404, sid.body);
    assert.equal(codeOf(sid), 'ENTITY_NOT_FOUND');
    const held = await unarchive('ann', ids.held);
    assert.equal(held.statusCode, 403, held.body);
    assert.equal(codeOf(held), 'ABAC_DENIED');
    const funded = await unarchive('ann', ids.funded);
    assert.equal(funded.statusCode, 403, funded.body);
    assert.equal(codeOf(funded), 'FIELD_WRITE_DENIED');
    assert.deepEqual(funded.json<{ details: { fields: string[] } }>().details.fields, ['budget']);
    for (const id of [ids.north, ids.held, ids.funded]) {
      assert.equal(await hotRows(id), 0);
      // Still archived, once: readable and counted by the admin.
      assert.equal((await archived('admin', id)).statusCode, 200);
    }
    const admin = await as('admin', 'POST', `${casesPath}/archive/query`, {});
    assert.deepEqual(
      admin
        .json<Data<Case[]>>()
        .data.map((row) => row.id)
        .sort(),
      [ids.north, ids.south, ids.held, ids.funded].sort(),
    );
  });

  test('unarchive: RLS checks the re-inserted row as the caller (insert admits the create roles)', async () => {
    // The clerk may update and has no row filter, but the insert policy admits create roles only.
    const clerk = await unarchive('clerk', ids.south);
    assert.equal(clerk.statusCode, 403, clerk.body);
    assert.equal(codeOf(clerk), 'RLS_POLICY_DENIED');
    assert.equal(await hotRows(ids.south), 0);
    assert.equal((await archived('admin', ids.south)).statusCode, 200);
  });

  test('unarchive: the response is masked; the record is back for the admin with every field', async () => {
    const ann = await unarchive('ann', ids.north);
    assert.equal(ann.statusCode, 200, ann.body);
    const record = ann.json<Data<Case>>().data;
    assert.equal(record.subject, 'Printer jam again');
    assert.equal(record.secret_note, null);
    assert.equal(record.updated_by, 'ann');
    const admin = await as('admin', 'GET', `${casesPath}/${ids.north}`);
    assert.equal(admin.json<Data<Case>>().data.secret_note, `${secret}-2`);
    assert.equal((await archived('ann', ids.north)).statusCode, 404);
    const history = await as('admin', 'GET', `${casesPath}/${ids.north}/history?limit=100`);
    assert.deepEqual(
      history.json<Data<{ operation: string }[]>>().data.map((event) => event.operation),
      ['CREATE', 'UPDATE', 'ARCHIVE', 'UNARCHIVE'],
    );
    const verify = await as('admin', 'POST', 'platform/audit/verify', { schema: casesPath, id: ids.north });
    assert.equal(verify.json<Data<{ valid: boolean }>>().data.valid, true, verify.body);
    const funded = await unarchive('admin', ids.funded);
    assert.equal(funded.statusCode, 200, funded.body);
  });

  test('concurrent unarchives of a record in files: one brings it back, the others 404; history once', async () => {
    const twin = await create({ subject: 'Printer twin', region: 'north' });
    const patched = await as('admin', 'PATCH', `${casesPath}/${twin.id}`, {
      version: 1,
      subject: 'Printer twins',
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.ok((await archiveDue()) >= 1);
    assert.equal(await hotRows(twin.id), 0);
    const responses = await Promise.all([0, 1, 2].map(() => unarchive('admin', twin.id)));
    assert.deepEqual(responses.map((response) => response.statusCode).sort(), [200, 404, 404]);
    assert.equal(await hotRows(twin.id), 1);
    const history = await as('admin', 'GET', `${casesPath}/${twin.id}/history?limit=100`);
    assert.deepEqual(
      history.json<Data<{ operation: string }[]>>().data.map((event) => event.operation),
      ['CREATE', 'UPDATE', 'ARCHIVE', 'UNARCHIVE'],
    );
    const verify = await as('admin', 'POST', 'platform/audit/verify', { schema: casesPath, id: twin.id });
    assert.equal(verify.json<Data<{ valid: boolean; events: number }>>().data.valid, true, verify.body);
    // Archived again and brought back again: still one copy each way.
    assert.ok((await archiveDue()) >= 1);
    const again = await unarchive('admin', twin.id);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json<Data<Case>>().data.version, 4);
  });

  test('a hidden field value never appears in any archive response to an agent', () => {
    assert.ok(agentBodies.length > 10);
    for (const body of agentBodies) {
      assert.ok(!body.includes(secret), body);
      assert.ok(!body.includes('ocelot'), body);
    }
  });
});
