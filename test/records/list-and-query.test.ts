import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ordersPath, seededSupplierId, startRecordsApp, type RecordsTestApp } from './support/records-app.js';
import type { Body } from './support/records-app.js';

interface Page {
  data: Record<string, unknown>[];
  pagination: { limit: number; offset?: number; total?: number; cursor: string | null; has_more: boolean };
}

const statuses = ['draft', 'submitted', 'approved', 'received', 'cancelled'];

describe('records list and query', () => {
  let app: RecordsTestApp;
  const list = async (query: string) => {
    const response = await app.call('GET', `/api/${ordersPath}?${query}`);
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as Page;
  };
  before(async () => {
    app = await startRecordsApp();
    // 60 orders: amounts 10..600, statuses round-robin, every third without ordered_on.
    await app.database.pool.query(
      `INSERT INTO rec_acme.procurement__purchasing__purchase_orders__v1
         (created_by, updated_by, po_number, supplier_id, status, currency, amount, ordered_on, notes)
       SELECT 'seed', 'seed', 'PO-' || lpad(n::text, 6, '0'), $2::uuid, ($1::text[])[1 + n % 5],
              CASE WHEN n % 2 = 0 THEN 'EUR' ELSE 'USD' END, n * 10,
              CASE WHEN n % 3 = 0 THEN NULL ELSE date '2026-01-01' + n END, 'note ' || n
       FROM generate_series(1, 60) AS n`,
      [statuses, seededSupplierId],
    );
  });
  after(() => app.close());

  test('filters by equality and operators, sorts with - and +', async () => {
    const page = await list(
      'filter[status]=approved&filter[amount][gte]=100&filter[amount][lt]=400&sort=-amount',
    );
    const amounts = page.data.map((row) => row.amount);
    assert.deepEqual(amounts, [370, 320, 270, 220, 170, 120]);
    assert.ok(page.data.every((row) => row.status === 'approved'));
    const inList = await list(
      'filter[currency]=EUR&filter[status][in]=draft,received&sort=+po_number&limit=3',
    );
    // EUR are the even numbers; draft is n % 5 = 0 and received n % 5 = 3.
    assert.deepEqual(
      inList.data.map((row) => row.po_number),
      ['PO-000008', 'PO-000010', 'PO-000018'],
    );
    assert.ok(
      inList.data.every(
        (row) => row.currency === 'EUR' && ['draft', 'received'].includes(String(row.status)),
      ),
    );
    const missing = await list('filter[ordered_on][exists]=false&limit=1000');
    assert.equal(missing.data.length, 20);
    const ne = await list('filter[status][ne]=draft&limit=1000');
    assert.equal(ne.data.length, 48);
  });

  test('default limit 100, larger limits clamped to 1000, no total without offset', async () => {
    const page = await list('');
    assert.equal(page.pagination.limit, 100);
    assert.equal(page.data.length, 60);
    assert.equal(page.pagination.has_more, false);
    assert.equal(page.pagination.cursor, null);
    assert.equal(page.pagination.total, undefined);
    assert.equal((await list('limit=5000')).pagination.limit, 1000);
  });

  test('offset pagination returns total; past 1000 results a cursor is required', async () => {
    const page = await list('filter[currency]=USD&sort=amount&limit=7&offset=14');
    assert.equal(page.pagination.total, 30);
    assert.equal(page.pagination.offset, 14);
    assert.deepEqual(
      page.data.map((row) => row.amount),
      [290, 310, 330, 350, 370, 390, 410],
    );
    const beyond = await list('limit=10&offset=200');
    assert.equal(beyond.pagination.total, 60);
    assert.deepEqual(beyond.data, []);
    const tooFar = await app.call('GET', `/api/${ordersPath}?limit=100&offset=950`);
    assert.equal(tooFar.statusCode, 400);
    assert.match(tooFar.json<Body>().details.errors[0]?.reason ?? '', /cursor/);
  });

  test('cursor pagination walks every row once, in order, with nullable sort keys', async () => {
    for (const sort of ['-ordered_on', 'ordered_on', 'status,-amount', '-status,po_number']) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: Page = await list(
          `sort=${sort}&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        seen.push(...page.data.map((row) => String(row.po_number)));
        cursor = page.pagination.cursor;
        assert.equal(page.pagination.has_more, cursor !== null);
        pages += 1;
      } while (cursor && pages < 20);
      assert.equal(seen.length, 60, sort);
      assert.equal(new Set(seen).size, 60, sort);
      const all = await list(`sort=${sort}&limit=1000`);
      assert.deepEqual(
        seen,
        all.data.map((row) => String(row.po_number)),
        sort,
      );
    }
  });

  test('a cursor from another query, or tampered with, is 400', async () => {
    const page = await list('sort=amount&limit=5');
    const cursor = page.pagination.cursor!;
    const other = await app.call(
      'GET',
      `/api/${ordersPath}?sort=-amount&limit=5&cursor=${encodeURIComponent(cursor)}`,
    );
    assert.equal(other.statusCode, 400);
    assert.equal(other.json<Body>().code, 'VALIDATION_ERROR');
    const flipped = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
    const tampered = await app.call(
      'GET',
      `/api/${ordersPath}?sort=amount&limit=5&cursor=${encodeURIComponent(flipped)}`,
    );
    assert.equal(tampered.statusCode, 400);
    for (const junk of ['x', 'a.b', '...', '%00', 'e30.e30']) {
      const response = await app.call('GET', `/api/${ordersPath}?cursor=${encodeURIComponent(junk)}`);
      assert.equal(response.statusCode, 400, junk);
    }
  });

  test('filters and sorts on unknown, non-filterable or non-sortable fields are 400', async () => {
    for (const query of [
      'filter[notes]=x',
      'filter[nope]=x',
      'sort=notes',
      'sort=currency',
      'filter[amount][like]=1',
      'filter[amount]=abc',
      'filter[ordered_on][gt]=yesterday',
      'limit=0',
      'limit=-1',
      'offset=x',
      'unknown=1',
      'include=suppliers',
      'filter[status]=a&filter[status]=b',
    ]) {
      const response = await app.call('GET', `/api/${ordersPath}?${query}`);
      assert.equal(response.statusCode, 400, `${query}: ${response.body}`);
      assert.equal(response.json<Body>().code, 'VALIDATION_ERROR');
    }
  });

  test('POST query: and, or, not, every operator, select, sort, limit and cursor', async () => {
    const query = async (body: unknown) => {
      const response = await app.call('POST', `/api/${ordersPath}/query`, { body });
      assert.equal(response.statusCode, 200, response.body);
      return response.json() as Page;
    };
    const result = await query({
      where: {
        and: [
          { field: 'amount', op: 'gte', value: 100 },
          {
            or: [
              { field: 'status', op: 'eq', value: 'draft' },
              { field: 'currency', value: 'EUR' },
            ],
          },
          { not: { field: 'po_number', op: 'in', value: ['PO-000020', 'PO-000030'] } },
          { field: 'po_number', op: 'startsWith', value: 'PO-0000' },
          { field: 'amount', op: 'lte', value: 300 },
        ],
      },
      select: ['po_number', 'amount'],
      sort: [{ field: 'amount', direction: 'desc' }],
      limit: 4,
    });
    assert.deepEqual(result.data, [
      { po_number: 'PO-000028', amount: 280 },
      { po_number: 'PO-000026', amount: 260 },
      { po_number: 'PO-000025', amount: 250 },
      { po_number: 'PO-000024', amount: 240 },
    ]);
    assert.equal(result.pagination.has_more, true);
    const next = await query({
      where: {
        and: [
          { field: 'amount', op: 'gte', value: 100 },
          {
            or: [
              { field: 'status', op: 'eq', value: 'draft' },
              { field: 'currency', value: 'EUR' },
            ],
          },
          { not: { field: 'po_number', op: 'in', value: ['PO-000020', 'PO-000030'] } },
          { field: 'po_number', op: 'startsWith', value: 'PO-0000' },
          { field: 'amount', op: 'lte', value: 300 },
        ],
      },
      select: ['po_number', 'amount'],
      sort: [{ field: 'amount', direction: 'desc' }],
      limit: 4,
      cursor: result.pagination.cursor,
    });
    // 200 is PO-000020, excluded by the `not in`.
    assert.deepEqual(
      next.data.map((row) => row.amount),
      [220, 180, 160, 150],
    );
    const contains = await query({ where: { field: 'po_number', op: 'contains', value: '00005' } });
    assert.deepEqual(contains.data.map((row) => row.po_number).sort(), [
      'PO-000005',
      'PO-000050',
      'PO-000051',
      'PO-000052',
      'PO-000053',
      'PO-000054',
      'PO-000055',
      'PO-000056',
      'PO-000057',
      'PO-000058',
      'PO-000059',
    ]);
    const ranges = await query({
      where: {
        and: [
          { field: 'amount', op: 'gt', value: 580 },
          { field: 'ordered_on', op: 'exists', value: true },
          { field: 'status', op: 'ne', value: 'x' },
        ],
      },
      select: ['amount'],
      sort: [{ field: 'amount', direction: 'asc' }],
    });
    // 600 is n = 60, which has no ordered_on.
    assert.deepEqual(ranges.data, [{ amount: 590 }]);
    const lt = await query({
      where: { field: 'amount', op: 'lt', value: 30 },
      select: ['amount'],
      sort: [{ field: 'amount' }],
    });
    assert.deepEqual(lt.data, [{ amount: 10 }, { amount: 20 }]);
  });

  test('POST query rejects malformed bodies with 400', async () => {
    for (const body of [
      [],
      { where: { field: 'notes', op: 'eq', value: 'x' } },
      { where: { field: 'amount', op: 'regex', value: 'x' } },
      { where: { field: 'amount', op: 'eq', value: { $gt: 1 } } },
      { where: { and: [] } },
      { where: { field: 'amount' } },
      { select: ['nope'] },
      { sort: [{ field: 'amount', direction: 'sideways' }] },
      { limit: 'all' },
      { where: { field: 'po_number', op: 'startsWith', value: 5 }, extra: 1 },
      {
        where: JSON.parse('{"not":'.repeat(20) + '{"field":"amount","value":1}' + '}'.repeat(20)) as unknown,
      },
    ]) {
      const response = await app.call('POST', `/api/${ordersPath}/query`, { body });
      assert.equal(response.statusCode, 400, `${JSON.stringify(body)}: ${response.body}`);
      assert.equal(response.json<Body>().code, 'VALIDATION_ERROR');
    }
  });
});
