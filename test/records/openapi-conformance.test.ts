import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { routeTable } from '../helpers/route-table.js';
import { OpenApiValidator } from './support/openapi-validator.js';
import {
  ordersPath,
  purchaseOrder,
  startRecordsApp,
  suppliersPath,
  type RecordsTestApp,
} from './support/records-app.js';

// A search tier 3 schema with the time machine and an optional enum (absent values are null).
const notesPath = 'acme/kb/docs/notes/v1';
const notesYaml = `apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata:
  name: notes-v1
spec:
  org: acme
  app: kb
  domain: docs
  object: notes
  version: v1
  timeMachine: true
  searchTier: 3
  fields:
    - { name: title, type: string, required: true, searchable: true, sortable: true }
    - { name: kind, type: enum, enum: [memo, minutes] }
    - { name: views, type: integer, filterable: true }
`;

interface Sent {
  status: number;
  text: string;
  json: () => Record<string, unknown>;
}

describe('records OpenAPI document against live responses', () => {
  let app: RecordsTestApp;
  let base: string;
  let validator: OpenApiValidator;
  const exercised = new Set<string>();
  const failures: string[] = [];

  before(async () => {
    app = await startRecordsApp(
      { RECORDS_SEARCH_RATE_LIMIT: '3', WEFT_BODY_LIMIT_BYTES: '65536' },
      { resources: { 'notes.yaml': notesYaml } },
    );
    base = await app.service.app.listen({ port: 0, host: '127.0.0.1' });
    const document = await fetch(`${base}/api/openapi.json`, {
      headers: { authorization: `Bearer ${await app.token()}` },
    });
    assert.equal(document.status, 200);
    validator = new OpenApiValidator((await document.json()) as Record<string, unknown>);
  });
  after(() => app.close());

  /** Sends a request over HTTP, checks the answer against the document and records any problem. */
  async function send(
    method: string,
    url: string,
    expected: number,
    options: {
      body?: unknown;
      raw?: string;
      headers?: Record<string, string>;
      roles?: string[];
      actor?: string;
      anonymous?: boolean;
    } = {},
  ): Promise<Sent> {
    const headers: Record<string, string> = { ...options.headers };
    if (!options.anonymous) headers.authorization = `Bearer ${await app.token(options.actor, options.roles)}`;
    let body: string | undefined = options.raw;
    if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && headers['content-type'] === undefined)
      headers['content-type'] = 'application/json';
    const response = await fetch(`${base}${url}`, { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    const label = `${method} ${url} → ${response.status}`;
    if (response.status !== expected) failures.push(`${label}: expected ${expected}: ${text.slice(0, 300)}`);
    const found = validator.check(
      method,
      url,
      response.status,
      response.headers.get('content-type') ?? '',
      text,
    );
    if (found.path) exercised.add(`${method} ${found.path}`);
    for (const problem of found.problems) failures.push(`${label}: ${problem}`);
    return { status: response.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
  }

  test('every answer of a broad set of requests is listed in the document and matches its schema', async () => {
    const orders = `/api/${ordersPath}`;
    const notes = `/api/${notesPath}`;
    const missing = '0b7e2f8e-0000-4000-8000-000000000000';
    // Platform
    await send('GET', '/api/healthz', 200, { anonymous: true });
    await send('GET', '/api/readyz', 200, { anonymous: true });
    await send('GET', '/api/version', 200, { anonymous: true });
    await send('GET', '/api/api', 200);
    await send('GET', '/api', 200);
    await send('GET', '/api/api', 401, { anonymous: true });
    await send('GET', '/api/openapi.json', 200);
    await send('GET', '/api/metrics', 200, { roles: ['platform-admin'] });
    await send('GET', '/api/metrics', 403, { roles: ['viewer'] });
    await send('GET', '/api/auth/me', 200);
    await send('GET', '/api/platform/audit/auth', 200, { roles: ['platform-auditor'] });
    await send('GET', '/api/platform/audit/auth?outcome=nope', 400, { roles: ['platform-auditor'] });
    await send('GET', '/api/auth/login', 404, { anonymous: true });
    const strategies = await send('GET', '/api/auth/strategies', 200, { anonymous: true });
    assert.deepEqual(strategies.json(), { oidc: [] }, 'no AuthStrategy declared: no OIDC login');
    await send('GET', '/api/auth/callback?state=x&code=y', 401, { anonymous: true });
    await send('POST', '/api/auth/callback', 401, {
      anonymous: true,
      raw: 'state=x&code=y',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    await send('POST', '/api/auth/logout', 204, { anonymous: true });
    // API keys and role bindings
    const admin = { roles: ['platform-admin'] };
    await send('GET', '/api/platform/api-keys', 200, admin);
    const key = await send('POST', '/api/platform/api-keys', 201, {
      ...admin,
      body: { actor: 'robot', roles: ['viewer'] },
    });
    const keyId = (key.json().data as { id: string }).id;
    await send('POST', `/api/platform/api-keys/${keyId}/rotate`, 201, { ...admin, body: {} });
    await send('POST', `/api/platform/api-keys/${keyId}/revoke`, 204, admin);
    await send('POST', `/api/platform/api-keys/${missing}/revoke`, 404, admin);
    await send('POST', '/api/platform/api-keys', 400, { ...admin, body: { actor: '' } });
    await send('POST', '/api/platform/role-bindings/nobody/revoke', 404, admin);
    await send('DELETE', '/api/platform/role-bindings/nobody', 404, admin);
    await send('DELETE', '/api/platform/role-bindings/nobody', 403, { roles: ['viewer'] });

    // Records: create and its refusals
    const supplier = await send('POST', `/api/${suppliersPath}`, 201, {
      body: { name: 'Acme Parts', country: 'DE' },
    });
    const supplierId = (supplier.json().data as { id: string }).id;
    const created = await send('POST', orders, 201, { body: purchaseOrder({ supplier_id: supplierId }) });
    const order = created.json().data as { id: string; po_number: string; version: number };
    await send('POST', orders, 400, { body: { po_number: 'nope' } });
    await send('POST', orders, 400, { raw: '{"po_number": ' });
    await send('POST', orders, 400, { raw: '' });
    await send('POST', orders, 415, { raw: '<xml/>', headers: { 'content-type': 'application/xml' } });
    await send('POST', orders, 409, {
      body: purchaseOrder({ po_number: order.po_number, supplier_id: supplierId }),
    });
    await send('POST', orders, 403, { body: purchaseOrder({ supplier_id: supplierId }), roles: ['viewer'] });
    await send('POST', orders, 401, { body: purchaseOrder(), anonymous: true });
    const keyed = { 'idempotency-key': 'conformance-1' };
    await send('POST', orders, 201, { body: purchaseOrder({ supplier_id: supplierId }), headers: keyed });
    await send('POST', orders, 422, { body: purchaseOrder({ supplier_id: supplierId }), headers: keyed });
    await send('POST', '/api/acme/nothing/here/at-all/v1', 404, { body: {} });
    await send('POST', orders, 413, { raw: JSON.stringify({ po_number: 'x'.repeat(70_000) }) });
    // Reads
    await send('GET', orders, 200);
    await send('GET', `${orders}?offset=0&limit=5&sort=-created_at`, 200);
    await send('GET', `${orders}?include=supplier_id`, 200);
    await send('GET', `${orders}?bogus=1`, 400);
    await send('GET', `${orders}/_schema`, 200);
    await send('GET', `${orders}/_schema`, 403, { roles: ['nobody'] });
    await send('POST', `${orders}/query`, 200, {
      body: { where: { field: 'currency', op: 'eq', value: 'EUR' }, select: ['po_number'] },
    });
    await send('POST', `${orders}/query`, 400, { body: { where: { field: 'nope', op: 'eq', value: 1 } } });
    await send('GET', `${orders}/${order.id}`, 200);
    await send('GET', `${orders}/${order.id}?include=supplier_id`, 200);
    await send('GET', `${orders}/${missing}`, 404);
    // Notes: an absent optional enum is shown as null and must still match the document.
    const note = await send('POST', notes, 201, { body: { title: 'Weekly minutes', views: 3 } });
    const noteId = (note.json().data as { id: string; kind: unknown }).id;
    assert.equal((note.json().data as { kind: unknown }).kind, null);
    const read = await send('GET', `${notes}/${noteId}`, 200);
    // The validator is not vacuous: the same body with a value the enum forbids, or without its
    // requestId, is refused.
    const shown = read.json();
    const recheck = (body: unknown) =>
      validator.check('GET', `${notes}/${noteId}`, 200, 'application/json', JSON.stringify(body)).problems;
    assert.deepEqual(recheck(shown), []);
    assert.notDeepEqual(recheck({ ...shown, data: { ...(shown.data as object), kind: 'gossip' } }), []);
    assert.notDeepEqual(recheck({ ...shown, requestId: undefined }), []);
    // Update and delete
    const before = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await send('PATCH', `${orders}/${order.id}`, 200, { body: { version: 1, amount: 99 } });
    await send('PATCH', `${orders}/${order.id}`, 409, { body: { version: 1, amount: 98 } });
    await send('PATCH', `${orders}/${order.id}`, 400, { body: { version: 2 } });
    await send('PATCH', `${orders}/${missing}`, 404, { body: { version: 1, amount: 1 } });
    // Time machine
    await send('GET', `${orders}/${order.id}/history`, 200);
    await send('GET', `${orders}/${order.id}/history?at=${before}`, 200);
    await send('GET', `${orders}/${order.id}/history?at=yesterday`, 400);
    await send('GET', `${orders}/${order.id}/diff?from=${before}&to=${new Date().toISOString()}`, 200);
    await send('GET', `${orders}/${order.id}/replay`, 200);
    await send('GET', `${orders}/${missing}/replay`, 404);
    await send('POST', `${orders}/${order.id}/restore`, 201, { body: { at: before, reason: 'undo' } });
    await send('POST', `${orders}/${order.id}/restore`, 400, { body: { at: before } });
    const snapshot = await send('POST', `${orders}/history/snapshot`, 202, {
      body: { at: new Date().toISOString(), reason: 'month end' },
    });
    const snapshotId = (snapshot.json().data as { snapshot_id: string }).snapshot_id;
    // The job starts on a request at once and may finish before any read: a snapshot that is not
    // completed (here one that failed) shows the 400 without a race.
    const { rows: unfinished } = await app.database.pool.query<{ snapshot_id: string }>(
      `INSERT INTO records.snapshots (schema_path, at, reason, requested_by, status, error)
       VALUES ($1, now(), 'unfinished', 'alice', 'failed', 'test') RETURNING snapshot_id::text`,
      [ordersPath],
    );
    await send('GET', `${orders}/history/snapshot/${unfinished[0]!.snapshot_id}/records`, 400);
    await app.service.snapshots.runPending();
    await send('GET', `${orders}/history/snapshot/${snapshotId}`, 200);
    await send('GET', `${orders}/history/snapshot/${snapshotId}/records`, 200);
    await send('GET', `${orders}/history/snapshot/${missing}`, 404);
    // Archive
    await send('POST', `${orders}/archive/query`, 200, {
      body: { where: { field: 'currency', op: 'eq', value: 'EUR' } },
    });
    await send('POST', `${orders}/archive/query`, 400, { body: { nope: 1 } });
    await send('GET', `${orders}/${order.id}/archive`, 404);
    await send('GET', `${orders}/${order.id}/archive?version=x`, 400);
    await send('POST', `${orders}/${order.id}/unarchive`, 404, { body: { reason: 'needed' } });
    // Search
    // (each actor may search three times a minute here)
    await send('POST', `${notes}/search`, 200, { body: { q: 'minutes' }, actor: 'searcher' });
    await send('POST', `${notes}/search`, 400, { body: { q: '' }, actor: 'searcher' });
    await send('POST', `${orders}/search`, 400, { body: { q: 'x' }, actor: 'searcher' });
    await send('GET', '/api/acme/search?q=acme', 200);
    await send('GET', '/api/acme/search', 400);
    await send('GET', '/api/acme/search?q=acme', 200, { actor: 'limited' });
    await send('GET', '/api/acme/search?q=acme', 200, { actor: 'limited' });
    await send('GET', '/api/acme/search?q=acme', 200, { actor: 'limited' });
    await send('GET', '/api/acme/search?q=acme', 429, { actor: 'limited' });
    // Audit
    await send('GET', `/api/platform/audit?schema=${ordersPath}&limit=2`, 200);
    await send('GET', '/api/platform/audit', 403);
    await send('GET', '/api/platform/audit', 200, { roles: ['admin', 'auditor'] });
    await send('GET', '/api/platform/audit?operation=NOPE', 400, { roles: ['auditor'] });
    await send('POST', '/api/platform/audit/verify', 200, { body: { schema: ordersPath, id: order.id } });
    await send('POST', '/api/platform/audit/verify', 400, { body: { schema: ordersPath } });
    // Erasure
    const erasable = await send('POST', orders, 201, { body: purchaseOrder() });
    const erasableId = (erasable.json().data as { id: string }).id;
    await send('POST', '/api/platform/erase', 403, {
      body: { schema: ordersPath, id: erasableId, reason: 'r' },
    });
    await send('POST', '/api/platform/erase', 400, {
      ...admin,
      body: { schema: ordersPath, id: erasableId },
    });
    await send('POST', '/api/platform/erase', 404, {
      ...admin,
      body: { schema: ordersPath, id: missing, reason: 'r' },
    });
    await send('POST', '/api/platform/erase', 200, {
      ...admin,
      body: { schema: ordersPath, id: erasableId, reason: 'r' },
    });
    // Delete last
    await send('DELETE', `${orders}/${order.id}`, 204);
    await send('DELETE', `${orders}/${order.id}`, 404);
    await send('GET', `${orders}/${order.id}`, 404);
    // Hostile input anywhere: the error body, listed
    await send('GET', `${orders}?filter[po_number]=%00`, 400);

    assert.deepEqual(failures, []);
  });

  test('every registered route (method and path) is in the document, and the requests above reached each', () => {
    const undocumented: string[] = [];
    for (const route of routeTable(app.service.app)) {
      if (!validator.describesRoute(route.method, route.url))
        undocumented.push(`${route.method} ${route.url}`);
    }
    assert.deepEqual(undocumented, []);
    const unreached = routeTable(app.service.app)
      .map((route) => `${route.method} ${route.url}`)
      .filter((route) => {
        const [method, url] = route.split(' ') as [string, string];
        const pattern = new RegExp(`^${method} ${url.replace(/:[A-Za-z0-9_]+/g, '[^/]+')}$`);
        return ![...exercised].some((done) => pattern.test(done.replace(/\{[^}]+\}/g, 'x')));
      });
    assert.deepEqual(unreached, []);
  });

  test('431 (headers too large) and unparsable HTTP are answered in the error body', async () => {
    const { port } = new URL(base);
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk.toString()));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
    const parse = (answer: string) => {
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      return { status: Number(head.split(' ')[1]), head, body: JSON.parse(body) as Record<string, unknown> };
    };
    const tooLarge = parse(
      await raw(`GET /api/version HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    assert.equal(tooLarge.status, 431);
    assert.equal(tooLarge.body.code, 'REQUEST_HEADERS_TOO_LARGE');
    assert.match(tooLarge.head, /x-request-id: [0-9a-f-]{36}/i);
    assert.deepEqual(Object.keys(tooLarge.body).sort(), ['code', 'details', 'message', 'requestId']);
    const garbled = parse(await raw('GET /api/version HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
    assert.equal(garbled.status, 400);
    assert.equal(garbled.body.code, 'BAD_REQUEST');
    assert.equal(garbled.body.requestId, garbled.head.match(/x-request-id: (\S+)/i)?.[1]);
  });
});
