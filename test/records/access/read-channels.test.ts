import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import type { LightMyRequestResponse } from 'fastify';
import { systemClock } from '../../../src/platform/clock.js';
import { AccessControl } from '../../../src/records/access/access-control.js';
import { startRecordsApp, testJwtSecret, type RecordsTestApp } from '../support/records-app.js';

/**
 * Layers 2, 4, 5 and 7 on every read channel besides list and GET: history (events and `at`),
 * diff, replay, restore's response, snapshot rows, per-schema and org search, and the audit log.
 */

const ticketsPath = 'acme/support/desk/tickets/v1';
const ticketsTable = 'rec_acme.support__desk__tickets__v1';
const ticketsYaml = `apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: tickets-v1 }
spec:
  org: acme
  app: support
  domain: desk
  object: tickets
  version: v1
  timeMachine: true
  searchTier: 3
  fields:
    - { name: subject, type: string, required: true, searchable: true }
    - { name: region, type: string, required: true, filterable: true }
    - { name: secret_note, type: string, searchable: true, filterable: true }
    - { name: status, type: enum, enum: [open, closed, legal_hold], default: open, filterable: true }
  access:
    roles: { create: [agent, admin], read: [agent, admin, auditor], update: [agent, admin], delete: [admin] }
    abac:
      - { operation: read, condition: 'record.status != "legal_hold" || "admin" in actor.roles', message: Legal holds are for admins }
    rowFilter:
      - { role: agent, condition: "region = (SELECT current_setting('weft.attributes')::jsonb->>'region')" }
    fieldAccess:
      - { field: secret_note, read: [admin] }
`;

const actors = {
  admin: { roles: ['admin'], attributes: {} },
  ann: { roles: ['agent'], attributes: { region: 'north' } },
  sid: { roles: ['agent'], attributes: { region: 'south' } },
  aud: { roles: ['auditor'], attributes: {} },
} as const;
type Actor = keyof typeof actors;

interface Tickets {
  app: RecordsTestApp;
  as(actor: Actor, method: 'GET' | 'POST', url: string, body?: unknown): Promise<LightMyRequestResponse>;
}

async function startTickets(access?: AccessControl): Promise<Tickets> {
  const app = await startRecordsApp(
    {},
    { resources: { 'tickets.yaml': ticketsYaml }, ...(access ? { access } : {}) },
  );
  const as: Tickets['as'] = async (actor, method, url, body) => {
    const token = await new SignJWT({ roles: [...actors[actor].roles], attributes: actors[actor].attributes })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(actor)
      .setIssuer('https://issuer.test')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(testJwtSecret));
    return app.service.app.inject({
      method,
      url: `/api/${url}`,
      headers: { authorization: `Bearer ${token}` },
      ...(body !== undefined ? { payload: body as object } : {}),
    });
  };
  return { app, as };
}

type Data<T> = { data: T };
interface Event {
  old_value: Record<string, unknown> | null;
  new_value: Record<string, unknown> | null;
}

/** Creates the fixture tickets as the admin: N1 (north, changed once), S1 (south), H1 (north, legal hold). */
async function seed(tickets: Tickets) {
  const create = async (body: Record<string, unknown>) => {
    const response = await tickets.as('admin', 'POST', ticketsPath, body);
    assert.equal(response.statusCode, 201, response.body);
    return response.json<Data<{ id: string; version: number; updated_at: string }>>().data;
  };
  const n1 = await create({ subject: 'Printer jam', region: 'north', secret_note: 'zebra password' });
  const s1 = await create({ subject: 'Printer south', region: 'south', secret_note: 'ocelot' });
  const h1 = await create({ subject: 'Printer held', region: 'north', status: 'legal_hold' });
  const patched = await tickets.app.service.app.inject({
    method: 'PATCH',
    url: `/api/${ticketsPath}/${n1.id}`,
    headers: { authorization: `Bearer ${await tickets.app.token('admin', ['admin'])}` },
    payload: { version: 1, subject: 'Printer jam again', secret_note: 'zebra two' },
  });
  assert.equal(patched.statusCode, 200, patched.body);
  const updatedAt = patched.json<Data<{ updated_at: string }>>().data.updated_at;
  return { n1: n1.id, s1: s1.id, h1: h1.id, createdAt: n1.updated_at, updatedAt };
}

function codeOf(response: LightMyRequestResponse): string {
  return response.json<{ code: string }>().code;
}

describe('records access: every read channel', () => {
  let tickets: Tickets;
  let ids: Awaited<ReturnType<typeof seed>>;
  before(async () => {
    tickets = await startTickets();
    ids = await seed(tickets);
  });
  after(() => tickets?.app.close());

  test('history events: hidden fields are null in old and new values; a hidden record is 404', async () => {
    const ann = await tickets.as('ann', 'GET', `${ticketsPath}/${ids.n1}/history`);
    assert.equal(ann.statusCode, 200, ann.body);
    const events = ann.json<Data<Event[]>>().data;
    assert.equal(events.length, 2);
    for (const event of events)
      for (const value of [event.old_value, event.new_value])
        if (value && 'secret_note' in value) assert.equal(value.secret_note, null);
    assert.equal(events[1]?.new_value?.subject, 'Printer jam again', 'readable fields stay');
    assert.doesNotMatch(ann.body, /zebra/);
    const admin = await tickets.as('admin', 'GET', `${ticketsPath}/${ids.n1}/history`);
    assert.match(admin.body, /zebra two/, 'the admin reads the field');
    const sid = await tickets.as('sid', 'GET', `${ticketsPath}/${ids.n1}/history`);
    assert.equal(sid.statusCode, 404, 'the row filter hides the record: 404 as for GET');
    assert.equal(codeOf(sid), 'ENTITY_NOT_FOUND');
    const held = await tickets.as('ann', 'GET', `${ticketsPath}/${ids.h1}/history`);
    assert.equal(held.statusCode, 403, 'record read rules apply');
    assert.equal(codeOf(held), 'ABAC_DENIED');
  });

  test('history at an instant: masked, and 404 for a hidden record', async () => {
    const at = encodeURIComponent(ids.updatedAt);
    const ann = await tickets.as('ann', 'GET', `${ticketsPath}/${ids.n1}/history?at=${at}`);
    assert.equal(ann.statusCode, 200, ann.body);
    const state = ann.json<Data<Record<string, unknown>>>().data;
    assert.equal(state.secret_note, null);
    assert.equal(state.subject, 'Printer jam again');
    const sid = await tickets.as('sid', 'GET', `${ticketsPath}/${ids.n1}/history?at=${at}`);
    assert.equal(sid.statusCode, 404);
  });

  test('diff: a hidden field shows in none of changed, added, removed', async () => {
    const query = `from=${encodeURIComponent(ids.createdAt)}&to=${encodeURIComponent(ids.updatedAt)}`;
    const admin = await tickets.as('admin', 'GET', `${ticketsPath}/${ids.n1}/diff?${query}`);
    assert.equal(admin.statusCode, 200, admin.body);
    assert.ok('secret_note' in admin.json<Data<{ changed: object }>>().data.changed);
    const ann = await tickets.as('ann', 'GET', `${ticketsPath}/${ids.n1}/diff?${query}`);
    assert.equal(ann.statusCode, 200, ann.body);
    const diff = ann.json<Data<Record<'added' | 'changed' | 'removed', Record<string, unknown>>>>().data;
    assert.deepEqual(Object.keys(diff.changed), ['subject']);
    assert.deepEqual(diff.added, {});
    assert.deepEqual(diff.removed, {});
    assert.equal((await tickets.as('sid', 'GET', `${ticketsPath}/${ids.n1}/diff?${query}`)).statusCode, 404);
  });

  test('replay: every streamed event is masked; a hidden record is 404', async () => {
    const ann = await tickets.as('ann', 'GET', `${ticketsPath}/${ids.n1}/replay`);
    assert.equal(ann.statusCode, 200);
    const events = ann.body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as Event);
    assert.equal(events.length, 2);
    assert.equal(events[0]?.new_value?.secret_note, null);
    assert.doesNotMatch(ann.body, /zebra/);
    assert.equal((await tickets.as('sid', 'GET', `${ticketsPath}/${ids.n1}/replay`)).statusCode, 404);
  });

  test('restore: a hidden record is 404 and the response is masked', async () => {
    const body = { at: ids.updatedAt, reason: 'back to the second version' };
    const sid = await tickets.as('sid', 'POST', `${ticketsPath}/${ids.n1}/restore`, body);
    assert.equal(sid.statusCode, 404, sid.body);
    const ann = await tickets.as('ann', 'POST', `${ticketsPath}/${ids.n1}/restore`, body);
    assert.equal(ann.statusCode, 201, ann.body);
    assert.equal(ann.json<Data<{ secret_note: unknown }>>().data.secret_note, null);
  });

  test('snapshot rows pass the row filter, the record rules and the field mask', async () => {
    const requested = await tickets.as('admin', 'POST', `${ticketsPath}/history/snapshot`, {
      at: new Date(Date.now() + 60_000).toISOString(),
      reason: 'month end',
    });
    assert.equal(requested.statusCode, 202, requested.body);
    const snapshotId = requested.json<Data<{ snapshot_id: string }>>().data.snapshot_id;
    await tickets.app.service.snapshots.runPending();
    const rows = `${ticketsPath}/history/snapshot/${snapshotId}/records`;
    const ann = await tickets.as('ann', 'GET', `${rows}?filter[status]=open`);
    assert.equal(ann.statusCode, 200, ann.body);
    const data = ann.json<Data<{ id: string; secret_note: unknown }[]>>().data;
    assert.deepEqual(
      data.map((row) => [row.id, row.secret_note]),
      [[ids.n1, null]],
    );
    const sid = await tickets.as('sid', 'GET', rows);
    assert.deepEqual(
      sid.json<Data<{ id: string }[]>>().data.map((row) => row.id),
      [ids.s1],
    );
    const held = await tickets.as('ann', 'GET', rows);
    assert.equal(held.statusCode, 403, 'a page holding a record the record rules deny is 403, as for lists');
    const admin = await tickets.as('admin', 'GET', rows);
    assert.equal(admin.json<Data<unknown[]>>().data.length, 3);
    const filtered = await tickets.as('ann', 'GET', `${rows}?filter[secret_note]=ocelot`);
    assert.equal(filtered.statusCode, 400, 'filtering on a field the caller cannot read');
  });

  test('search: row filter and mask apply, and hidden text matches nothing', async () => {
    const search = (actor: Actor, body: unknown) => tickets.as(actor, 'POST', `${ticketsPath}/search`, body);
    const ann = await search('ann', { q: 'printer', filter_by: 'status:=open' });
    assert.equal(ann.statusCode, 200, ann.body);
    const hits = ann.json<Data<{ id: string; secret_note: unknown; _text_match: number }[]>>().data;
    assert.deepEqual(
      hits.map((hit) => [hit.id, hit.secret_note]),
      [[ids.n1, null]],
    );
    const hidden = await search('ann', { q: 'zebra' });
    assert.equal(hidden.statusCode, 200, hidden.body);
    assert.equal(hidden.json<{ search_stats: { total_hits: number } }>().search_stats.total_hits, 0);
    assert.equal(hidden.json<Data<unknown[]>>().data.length, 0, 'a hidden field’s text finds nothing');
    const admin = await search('admin', { q: 'zebra' });
    assert.equal(admin.json<Data<{ id: string }[]>>().data[0]?.id, ids.n1, 'the admin finds it');
    const sid = await search('sid', { q: 'printer' });
    assert.deepEqual(
      sid.json<Data<{ id: string }[]>>().data.map((hit) => hit.id),
      [ids.s1],
    );
    assert.equal((await search('ann', { q: 'printer' })).statusCode, 403, 'record read rules on hits');
    const filter = await search('ann', { q: 'printer', filter_by: 'secret_note:=ocelot' });
    assert.equal(filter.statusCode, 400, 'filtering on a hidden field');
  });

  test('org search: rows filtered, record rules drop hits, hidden fields null and unmatched', async () => {
    const org = (actor: Actor, q: string) => tickets.as(actor, 'GET', `acme/search?q=${q}`);
    type Hit = { schema: string; id: string; fields: Record<string, unknown> };
    const ann = await org('ann', 'printer');
    assert.equal(ann.statusCode, 200, ann.body);
    const hits = ann.json<Data<Hit[]>>().data.filter((hit) => hit.schema === ticketsPath);
    assert.deepEqual(
      hits.map((hit) => hit.id),
      [ids.n1],
    );
    assert.equal(hits[0]?.fields.secret_note, null);
    const hidden = await org('ann', 'zebra');
    assert.deepEqual(
      hidden.json<Data<Hit[]>>().data.filter((hit) => hit.schema === ticketsPath),
      [],
    );
    const admin = await org('admin', 'zebra');
    assert.ok(admin.json<Data<Hit[]>>().data.some((hit) => hit.id === ids.n1));
  });

  test('audit: events of hidden records are left out or 404; values are masked', async () => {
    type AuditEvent = Event & { entity_id: string };
    const ann = await tickets.as('ann', 'GET', `platform/audit?schema=${ticketsPath}&limit=100`);
    assert.equal(ann.statusCode, 200, ann.body);
    const events = ann.json<Data<AuditEvent[]>>().data;
    assert.deepEqual([...new Set(events.map((event) => event.entity_id))], [ids.n1]);
    assert.doesNotMatch(ann.body, /zebra/);
    const one = await tickets.as('ann', 'GET', `platform/audit?schema=${ticketsPath}&entity_id=${ids.s1}`);
    assert.equal(one.statusCode, 404, 'a record the row filter hides');
    const held = await tickets.as('ann', 'GET', `platform/audit?schema=${ticketsPath}&entity_id=${ids.h1}`);
    assert.equal(held.statusCode, 403);
    const verify = await tickets.as('sid', 'POST', 'platform/audit/verify', {
      schema: ticketsPath,
      id: ids.n1,
    });
    assert.equal(verify.statusCode, 404);
    const auditor = await tickets.as('aud', 'GET', 'platform/audit?limit=100');
    assert.equal(auditor.statusCode, 200, auditor.body);
    const all = auditor.json<Data<(AuditEvent & { schema: string })[]>>().data;
    assert.ok(
      all.some((event) => event.entity_id === ids.s1),
      'the auditor role has no row filter',
    );
    assert.ok(!all.some((event) => event.entity_id === ids.h1), 'record read rules still apply');
    assert.doesNotMatch(auditor.body, /zebra|ocelot/);
    const admin = await tickets.as('admin', 'GET', `platform/audit?schema=${ticketsPath}&limit=100`);
    assert.match(admin.body, /zebra/);
  });
});

describe('records access: RLS alone guards the read channels', () => {
  let tickets: Tickets;
  let ids: Awaited<ReturnType<typeof seed>>;
  before(async () => {
    tickets = await startTickets(new AccessControl({ clock: systemClock, applyRowFilters: false }));
    ids = await seed(tickets);
  });
  after(() => tickets?.app.close());

  test('with layer 4 off in the application, history, search and audit still hide the rows', async () => {
    assert.equal((await tickets.as('sid', 'GET', `${ticketsPath}/${ids.n1}/history`)).statusCode, 404);
    const search = await tickets.as('sid', 'POST', `${ticketsPath}/search`, { q: 'printer' });
    assert.deepEqual(
      search.json<Data<{ id: string }[]>>().data.map((hit) => hit.id),
      [ids.s1],
    );
    const audit = await tickets.as('sid', 'GET', `platform/audit?schema=${ticketsPath}&limit=100`);
    assert.deepEqual(
      [...new Set(audit.json<Data<{ entity_id: string }[]>>().data.map((event) => event.entity_id))],
      [ids.s1],
    );
  });

  test('start-up brings missing policies back, and leaves current ones alone', async () => {
    const pool = tickets.app.database.pool;
    const policies = async () =>
      (
        await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_policies WHERE schemaname = 'rec_acme' AND tablename = 'support__desk__tickets__v1'`,
        )
      ).rows[0]?.n;
    for (const name of ['weft_select', 'weft_insert', 'weft_update', 'weft_delete'])
      await pool.query(`DROP POLICY ${name} ON ${ticketsTable}`);
    await pool.query(`REVOKE ALL ON ${ticketsTable} FROM weft_records_api`);
    assert.equal(await policies(), 0);
    const { syncRowSecurity } = await import('../../../src/records/access/row-security-sync.js');
    const schemas = tickets.app.service.registry.all();
    const first = await syncRowSecurity(pool, schemas);
    assert.ok(first.updated.includes(ticketsPath));
    assert.equal(await policies(), 4);
    const second = await syncRowSecurity(pool, schemas);
    assert.deepEqual(second.updated, [], 'a second run changes nothing');
    assert.ok(second.current.includes(ticketsPath));
    // And the service start runs it: drop them again and start a second instance on the database.
    await pool.query(`DROP POLICY weft_select ON ${ticketsTable}`);
    const again = await startRecordsApp({}, { database: tickets.app.database, seedExamples: false });
    try {
      assert.equal(await policies(), 4);
      const sid = await tickets.as('sid', 'GET', `${ticketsPath}?limit=100`);
      assert.deepEqual(
        sid.json<Data<{ id: string }[]>>().data.map((row) => row.id),
        [ids.s1],
      );
    } finally {
      await again.close();
    }
  });
});
