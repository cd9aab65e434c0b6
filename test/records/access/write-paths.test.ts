import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import type { LightMyRequestResponse } from 'fastify';
import { ArchiveJob } from '../../../src/records/archive/archive-job.js';
import { captureLogs } from '../../helpers/log-capture.js';
import { MovableClock } from '../support/auth-fixtures.js';
import { startRecordsApp, testJwtSecret, type RecordsTestApp } from '../support/records-app.js';

/**
 * Every write path applies every write layer, as a PATCH of the same change would: restore,
 * unarchive and idempotent replays. For each: an actor who may not write field F cannot change F
 * through the path, a permitted actor still can, the update rules see the change (ABAC), and the
 * row filter and RLS hold for the row written.
 */

const access = `
  access:
    roles: { create: [rep, manager, admin], read: [rep, manager, admin, clerk], update: [rep, manager, admin, clerk], delete: [admin] }
    abac:
      - { operation: update, condition: 'record.status != "won"', message: Won quotes are closed }
      - operation: update
        condition: '!has(request.amount) || request.amount <= 100000 || "manager" in actor.roles'
        message: Quotes above 100000 need a manager
      - operation: read
        condition: '!has(actor.attributes.blocked) || actor.attributes.blocked != true'
        message: Blocked actors may not read quotes
    rowFilter:
      - { role: rep, condition: "region = (SELECT current_setting('weft.attributes')::jsonb->>'region')" }
    fieldAccess:
      - { field: margin, read: [manager, admin], write: [manager, admin] }
      - { field: discount, write: [manager, admin] }
`;
const fields = `
  fields:
    - { name: title, type: string, required: true }
    - { name: region, type: string, required: true }
    - { name: status, type: enum, enum: [open, won], default: open }
    - { name: amount, type: number, required: true }
    - { name: margin, type: number }
    - { name: discount, type: number }
`;
const document = (object: string, extra: string) => `apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: ${object}-v1 }
spec:
  org: acme
  app: sales
  domain: crm
  object: ${object}
  version: v1
${extra}${fields}${access}`;

const quotesPath = 'acme/sales/crm/quotes/v1';
const storedPath = 'acme/sales/crm/stored-quotes/v1';
const resources = {
  'quotes.yaml': document('quotes', '  timeMachine: true\n'),
  'stored-quotes.yaml': document('stored-quotes', '  archive: { afterDays: 30 }\n'),
};

interface Caller {
  sub: string;
  roles: string[];
  attributes: Record<string, unknown>;
}
const actors = {
  admin: { sub: 'admin', roles: ['admin'], attributes: {} },
  mgr: { sub: 'mgr', roles: ['manager'], attributes: { region: 'north' } },
  rita: { sub: 'rita', roles: ['rep'], attributes: { region: 'north' } },
  sam: { sub: 'sam', roles: ['rep'], attributes: { region: 'south' } },
  clerk: { sub: 'clerk', roles: ['clerk'], attributes: {} },
  blocked: { sub: 'bob', roles: ['rep'], attributes: { region: 'north', blocked: true } },
} satisfies Record<string, Caller>;
type Quote = Record<string, unknown> & { id: string; version: number; updated_at: string };
type Failure = { code: string; message: string; details: { fields?: string[] } };

const day = 86_400_000;

describe('records access: every write path applies every write layer', () => {
  let app: RecordsTestApp;
  const clock = new MovableClock();
  const as = async (
    caller: Caller,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> => {
    const token = await new SignJWT({ roles: caller.roles, attributes: caller.attributes })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(caller.sub)
      .setIssuer('https://issuer.test')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(testJwtSecret));
    return app.service.app.inject({
      method,
      url: `/api/${url}`,
      headers: { authorization: `Bearer ${token}`, ...headers },
      ...(body !== undefined ? { payload: body as object } : {}),
    });
  };
  const ok = (response: LightMyRequestResponse, status: number): Quote => {
    assert.equal(response.statusCode, status, response.body);
    return response.json<{ data: Quote }>().data;
  };
  const denied = (response: LightMyRequestResponse, status: number, code: string): Failure => {
    assert.equal(response.statusCode, status, response.body);
    const body = response.json<Failure>();
    assert.equal(body.code, code, response.body);
    return body;
  };
  const create = async (path: string, body: Record<string, unknown>) =>
    ok(await as(actors.admin, 'POST', path, body), 201);
  const patch = async (caller: Caller, id: string, body: Record<string, unknown>) => {
    const current = ok(await as(actors.admin, 'GET', `${quotesPath}/${id}`), 200);
    return as(caller, 'PATCH', `${quotesPath}/${id}`, { version: current.version, ...body });
  };
  const stored = async (id: string) => ok(await as(actors.admin, 'GET', `${quotesPath}/${id}`), 200);
  const restore = (caller: Caller, id: string, at: string, headers: Record<string, string> = {}) =>
    as(caller, 'POST', `${quotesPath}/${id}/restore`, { at, reason: 'back as it was' }, headers);
  const unarchive = (caller: Caller, id: string) =>
    as(caller, 'POST', `${storedPath}/${id}/unarchive`, { reason: 'needed again' });

  before(async () => {
    app = await startRecordsApp({}, { resources });
  });
  after(() => app?.close());

  describe('restore', () => {
    // A quote whose margin and discount (write-restricted) and title changed after `first`.
    let quote: Quote;
    let first: string;
    let titled: string;
    before(async () => {
      quote = await create(quotesPath, {
        title: 'Q1',
        region: 'north',
        amount: 500,
        margin: 0.3,
        discount: 5,
      });
      first = quote.updated_at;
      ok(await patch(actors.admin, quote.id, { margin: 0.5, discount: 10 }), 200);
      titled = ok(await patch(actors.admin, quote.id, { title: 'Q1 renamed' }), 200).updated_at as string;
      ok(await patch(actors.admin, quote.id, { title: 'Q1 again' }), 200);
    });

    test('a rep who may not PATCH margin cannot restore it to an earlier value either', async () => {
      const patched = denied(await patch(actors.rita, quote.id, { margin: 0.3 }), 403, 'FIELD_WRITE_DENIED');
      assert.deepEqual(patched.details.fields, ['margin']);
      const before = await stored(quote.id);
      const restored = denied(await restore(actors.rita, quote.id, first), 403, 'FIELD_WRITE_DENIED');
      assert.deepEqual(restored.details.fields, ['margin', 'discount']);
      const after = await stored(quote.id);
      assert.equal(after.margin, 0.5);
      assert.equal(after.discount, 10);
      assert.equal(after.version, before.version);
    });

    test('a rep may restore when the restore changes no field she may not write', async () => {
      // At `titled` margin and discount were as they are now: only the title comes back.
      const restored = ok(await restore(actors.rita, quote.id, titled), 201);
      assert.equal(restored.title, 'Q1 renamed');
      assert.equal(restored.margin, null, 'masked for the rep');
      const after = await stored(quote.id);
      assert.equal(after.title, 'Q1 renamed');
      assert.equal(after.margin, 0.5);
    });

    test('a manager may restore margin and discount', async () => {
      const restored = ok(await restore(actors.mgr, quote.id, first), 201);
      assert.equal(restored.margin, 0.3);
      const after = await stored(quote.id);
      assert.equal(after.margin, 0.3);
      assert.equal(after.discount, 5);
      assert.equal(after.title, 'Q1');
    });

    test('ABAC sees the change: a rep cannot restore an amount a PATCH could not set', async () => {
      const big = await create(quotesPath, { title: 'Big', region: 'north', amount: 200000 });
      ok(await patch(actors.admin, big.id, { amount: 900 }), 200);
      const patched = denied(await patch(actors.rita, big.id, { amount: 200000 }), 403, 'ABAC_DENIED');
      assert.equal(patched.message, 'Quotes above 100000 need a manager');
      const restored = denied(await restore(actors.rita, big.id, big.updated_at), 403, 'ABAC_DENIED');
      assert.equal(restored.message, 'Quotes above 100000 need a manager');
      assert.equal((await stored(big.id)).amount, 900);
      ok(await restore(actors.mgr, big.id, big.updated_at), 201);
      assert.equal((await stored(big.id)).amount, 200000);
    });

    test('ABAC on the stored record: a won quote cannot be restored by a rep', async () => {
      const won = await create(quotesPath, { title: 'Won', region: 'north', amount: 10 });
      ok(await patch(actors.admin, won.id, { status: 'won' }), 200);
      const restored = denied(await restore(actors.rita, won.id, won.updated_at), 403, 'ABAC_DENIED');
      assert.equal(restored.message, 'Won quotes are closed');
      assert.equal((await stored(won.id)).status, 'won');
    });

    test('row filter: outside it 404; restoring into a region the rep may not write is refused', async () => {
      const moved = await create(quotesPath, { title: 'Moved', region: 'south', amount: 10 });
      ok(await patch(actors.admin, moved.id, { region: 'north' }), 200);
      denied(await restore(actors.sam, moved.id, moved.updated_at), 404, 'ENTITY_NOT_FOUND');
      denied(await patch(actors.rita, moved.id, { region: 'south' }), 403, 'RLS_POLICY_DENIED');
      denied(await restore(actors.rita, moved.id, moved.updated_at), 403, 'RLS_POLICY_DENIED');
      const after = await stored(moved.id);
      assert.equal(after.region, 'north');
      assert.equal(after.version, 2);
    });

    test('a soft-deleted record: restoring it back to life checks the fields it changes', async () => {
      const gone = await create(quotesPath, { title: 'Gone', region: 'north', amount: 10, margin: 0.1 });
      ok(await patch(actors.admin, gone.id, { margin: 0.2 }), 200);
      const live = (await stored(gone.id)).updated_at;
      const deleted = await as(actors.admin, 'DELETE', `${quotesPath}/${gone.id}`);
      assert.equal(deleted.statusCode, 204, deleted.body);
      denied(await restore(actors.rita, gone.id, gone.updated_at), 403, 'FIELD_WRITE_DENIED');
      const back = ok(await restore(actors.rita, gone.id, live), 201);
      assert.equal(back.deleted_at, null);
      assert.equal((await stored(gone.id)).margin, 0.2);
    });
  });

  describe('unarchive', () => {
    let ids: Record<'plain' | 'margined' | 'big' | 'south', string>;
    before(async () => {
      const plain = await create(storedPath, { title: 'Plain', region: 'north', amount: 10 });
      const margined = await create(storedPath, {
        title: 'Margined',
        region: 'north',
        amount: 10,
        margin: 0.4,
      });
      const big = await create(storedPath, { title: 'Big', region: 'north', amount: 200000 });
      const south = await create(storedPath, { title: 'South', region: 'south', amount: 10 });
      ids = { plain: plain.id, margined: margined.id, big: big.id, south: south.id };
      const job = new ArchiveJob({
        pool: app.database.pool,
        registry: app.service.registry,
        clock,
        logger: captureLogs('fatal').logger,
      });
      clock.advance(31 * day);
      assert.equal(await job.runOnce(), 4);
    });

    test('a rep cannot bring back a margin she may not write; a manager can', async () => {
      const rita = denied(await unarchive(actors.rita, ids.margined), 403, 'FIELD_WRITE_DENIED');
      assert.deepEqual(rita.details.fields, ['margin']);
      const back = ok(await unarchive(actors.mgr, ids.margined), 200);
      assert.equal(back.margin, 0.4);
    });

    test('the update rules see the restored values: a rep cannot bring back an amount above her cap', async () => {
      const rita = denied(await unarchive(actors.rita, ids.big), 403, 'ABAC_DENIED');
      assert.equal(rita.message, 'Quotes above 100000 need a manager');
      ok(await unarchive(actors.mgr, ids.big), 200);
    });

    test('create: the id of an archived record is taken; the archived record stays archived', async () => {
      const body = { id: ids.south, title: 'Shadow', region: 'north', amount: 1 };
      denied(await as(actors.rita, 'POST', storedPath, body), 409, 'UNIQUE_CONSTRAINT_VIOLATION');
      const archived = await as(actors.sam, 'GET', `${storedPath}/${ids.south}/archive`);
      assert.equal(archived.statusCode, 200, archived.body);
      assert.equal(archived.json<{ data: Quote }>().data.title, 'South');
    });

    test('outside the row filter 404; a rep may unarchive a record she may write', async () => {
      denied(await unarchive(actors.rita, ids.south), 404, 'ENTITY_NOT_FOUND');
      const back = ok(await unarchive(actors.rita, ids.plain), 200);
      assert.equal(back.updated_by, 'rita');
    });
  });

  describe('idempotent replays', () => {
    let quote: Quote;
    before(async () => {
      quote = await create(quotesPath, { title: 'Replayed', region: 'north', amount: 10, margin: 0.1 });
    });
    const key = (name: string) => ({ 'idempotency-key': `write-paths-${name}` });

    test('an actor who lost the right to write margin does not get the stored response again', async () => {
      const pat: Caller = { sub: 'pat', roles: ['manager'], attributes: { region: 'north' } };
      const body = { version: quote.version, margin: 0.9 };
      const first = ok(await as(pat, 'PATCH', `${quotesPath}/${quote.id}`, body, key('pat')), 200);
      assert.equal(first.margin, 0.9);
      const replay = await as(pat, 'PATCH', `${quotesPath}/${quote.id}`, body, key('pat'));
      assert.equal(replay.statusCode, 200, replay.body);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      // pat is a rep now: the same request would be 403, and the stored body shows margin.
      const demoted: Caller = { ...pat, roles: ['rep'] };
      const retried = denied(
        await as(demoted, 'PATCH', `${quotesPath}/${quote.id}`, body, key('pat')),
        422,
        'IDEMPOTENCY_CONFLICT',
      );
      assert.ok(!JSON.stringify(retried).includes('0.9'));
      const moved: Caller = { ...pat, attributes: { region: 'south' } };
      denied(
        await as(moved, 'PATCH', `${quotesPath}/${quote.id}`, body, key('pat')),
        422,
        'IDEMPOTENCY_CONFLICT',
      );
      const after = await stored(quote.id);
      assert.equal(after.margin, 0.9);
      assert.equal(after.version, quote.version + 1);
    });

    test('another actor with the same key runs its own request through every layer', async () => {
      const current = await stored(quote.id);
      const body = { version: current.version, margin: 0.2 };
      ok(await as(actors.mgr, 'PATCH', `${quotesPath}/${quote.id}`, body, key('shared')), 200);
      denied(
        await as(actors.rita, 'PATCH', `${quotesPath}/${quote.id}`, body, key('shared')),
        403,
        'FIELD_WRITE_DENIED',
      );
    });

    test('restore takes an Idempotency-Key; its replay is bound to the actor and its access', async () => {
      const at = (await stored(quote.id)).updated_at;
      ok(await patch(actors.admin, quote.id, { title: 'Renamed' }), 200);
      const first = await restore(actors.rita, quote.id, at, key('restore'));
      ok(first, 201);
      const version = (await stored(quote.id)).version;
      const again = await restore(actors.rita, quote.id, at, key('restore'));
      assert.equal(again.statusCode, 201, again.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body, first.body);
      assert.equal((await stored(quote.id)).version, version, 'the restore ran once');
      const clerk = { ...actors.rita, roles: ['clerk'] };
      denied(await restore(clerk, quote.id, at, key('restore')), 422, 'IDEMPOTENCY_CONFLICT');
    });
  });

  describe('snapshots', () => {
    test('a snapshot writes no record; it needs the record-free read rules; its count is for callers who see every row', async () => {
      const count = async () =>
        Number(
          (await app.database.pool.query<{ n: string }>(`SELECT count(*) AS n FROM records.snapshots`))
            .rows[0]?.n,
        );
      const before = await count();
      const body = { at: new Date().toISOString(), reason: 'month end' };
      denied(await as(actors.blocked, 'POST', `${quotesPath}/history/snapshot`, body), 403, 'ABAC_DENIED');
      assert.equal(await count(), before);
      const taken = await as(actors.rita, 'POST', `${quotesPath}/history/snapshot`, body);
      assert.equal(taken.statusCode, 202, taken.body);
      const id = taken.json<{ data: { snapshot_id: string } }>().data.snapshot_id;
      denied(await as(actors.blocked, 'GET', `${quotesPath}/history/snapshot/${id}`), 403, 'ABAC_DENIED');
      await app.service.snapshots.runPending();
      const shown = (response: LightMyRequestResponse) =>
        ok(response, 200) as unknown as { status: string; row_count?: number };
      const admin = shown(await as(actors.admin, 'GET', `${quotesPath}/history/snapshot/${id}`));
      assert.equal(admin.status, 'completed');
      assert.ok((admin.row_count ?? 0) > 0);
      // The count covers every region: not shown to a rep who sees one.
      const rita = shown(await as(actors.rita, 'GET', `${quotesPath}/history/snapshot/${id}`));
      assert.equal(rita.status, 'completed');
      assert.equal(rita.row_count, undefined);
    });
  });
});
