import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ordersPath, purchaseOrder, startRecordsApp, type RecordsTestApp } from './support/records-app.js';
import type { Body } from './support/records-app.js';

const payloads = [
  `'`,
  `"`,
  `'; DROP TABLE records.resources; --`,
  `" OR 1=1 --`,
  `1) OR (1=1`,
  `x\\' UNION SELECT * FROM records.api_keys --`,
  `$1`,
  `\u0000`,
  `%00`,
  `../../etc/passwd`,
  `${'a'.repeat(5000)}`,
  `{"$gt":""}`,
  `]`,
  `[`,
  `\\`,
  `1; SELECT pg_sleep(5)`,
];

describe('records hostile input', () => {
  let app: RecordsTestApp;
  before(async () => {
    app = await startRecordsApp({ RECORDS_RATE_LIMIT_PER_MINUTE: '100000' });
  });
  after(() => app.close());

  const assertClientError = (response: { statusCode: number; body: string }, what: string) => {
    assert.ok(
      response.statusCode >= 400 && response.statusCode < 500,
      `${what}: ${response.statusCode} ${response.body}`,
    );
    const body = JSON.parse(response.body) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['code', 'details', 'message', 'requestId'], what);
  };

  test('injection payloads in every parameter give a 4xx envelope and change nothing', async () => {
    const created = await app.call('POST', `/api/${ordersPath}`, {
      body: purchaseOrder({ po_number: 'PO-424242' }),
    });
    const id = String(created.json<Body>().data.id);
    for (const payload of payloads) {
      const e = encodeURIComponent(payload);
      const urls = [
        `/api/${ordersPath}?filter[${e}]=1`,
        `/api/${ordersPath}?filter[amount][${e}]=1`,
        `/api/${ordersPath}?filter[amount]=${e}`,
        `/api/${ordersPath}?filter[amount][in]=1,${e}`,
        `/api/${ordersPath}?filter[expected_at][gt]=${e}`,
        `/api/${ordersPath}?sort=${e}`,
        `/api/${ordersPath}?limit=${e}`,
        `/api/${ordersPath}?offset=${e}`,
        `/api/${ordersPath}?cursor=${e}`,
        `/api/${ordersPath}?${e}=1`,
        `/api/acme/procurement/purchasing/${e}/v1`,
      ];
      for (const url of urls) {
        const response = await app.call('GET', url);
        // A payload may be a harmless valid value (e.g. "1" as offset); it must never be a 5xx.
        if (response.statusCode === 200) continue;
        assertClientError(response, url);
      }
      assertClientError(await app.call('GET', `/api/${ordersPath}/${e}`), `id ${payload}`);
      assertClientError(
        await app.call('PATCH', `/api/${ordersPath}/${e}`, { body: { version: 1, notes: 'x' } }),
        'patch id',
      );
      assertClientError(await app.call('DELETE', `/api/${ordersPath}/${e}`), 'delete id');
      assertClientError(
        await app.call('POST', `/api/${ordersPath}`, { body: purchaseOrder({ [payload]: 1 }) }),
        'field name',
      );
      assertClientError(
        await app.call('POST', `/api/${ordersPath}`, { body: purchaseOrder({ amount: payload }) }),
        'number',
      );
      assertClientError(
        await app.call('POST', `/api/${ordersPath}`, { body: purchaseOrder({ expected_at: payload }) }),
        'ts',
      );
      assertClientError(
        await app.call('POST', `/api/${ordersPath}`, { body: purchaseOrder({ supplier_id: payload }) }),
        'uuid',
      );
      assertClientError(
        await app.call('PATCH', `/api/${ordersPath}/${id}`, { body: { version: 1, [payload]: 'x' } }),
        'patch field',
      );
      for (const body of [
        { where: { field: payload, value: 1 } },
        { where: { field: 'amount', op: payload, value: 1 } },
        { where: { field: 'amount', value: payload } },
        { where: { field: 'expected_at', op: 'gte', value: payload } },
        { select: [payload] },
        { sort: [{ field: payload }] },
        { cursor: payload },
      ]) {
        assertClientError(
          await app.call('POST', `/api/${ordersPath}/query`, { body }),
          JSON.stringify(body).slice(0, 80),
        );
      }
      // Free-text values are stored and matched literally.
      const notes = await app.call('POST', `/api/${ordersPath}/query`, {
        body: { where: { field: 'po_number', op: 'contains', value: payload } },
      });
      if (payload.includes('\u0000')) assertClientError(notes, 'NUL in contains');
      else assert.equal(notes.statusCode, 200, notes.body);
      const stored = await app.call('PATCH', `/api/${ordersPath}/${id}`, {
        body: {
          version: (await app.call('GET', `/api/${ordersPath}/${id}`)).json<Body>().data.version,
          notes: payload.slice(0, 4000),
        },
      });
      if (payload.includes('\u0000')) assertClientError(stored, 'NUL in text');
      else {
        assert.equal(stored.statusCode, 200, stored.body);
        assert.equal(stored.json<Body>().data.notes, payload.slice(0, 4000));
      }
    }
    const { rows } = await app.database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM records.resources`,
    );
    assert.equal(rows[0]?.n, 2, 'the catalogue is intact');
  });

  test('wrong types, unknown fields, arrays, huge numbers and oversized bodies are 4xx', async () => {
    const url = `/api/${ordersPath}`;
    for (const body of [
      [],
      'text',
      42,
      null,
      purchaseOrder({ amount: 1e300 }),
      purchaseOrder({ currency: ['EUR'] }),
      purchaseOrder({ lines: { deep: 'x'.repeat(10) }, id: 'not-a-uuid' }),
      purchaseOrder({ ordered_on: '2026-02-30' }),
      purchaseOrder({ version: 3 }),
      { ...purchaseOrder(), __proto__: { admin: true } },
    ]) {
      const response = await app.service.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${await app.token()}`, 'content-type': 'application/json' },
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      });
      if (response.statusCode === 201) continue; // e.g. 1e300 fits numeric
      assertClientError(response, JSON.stringify(body)?.slice(0, 60) ?? 'undefined');
    }
    const huge = await app.service.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${await app.token()}`, 'content-type': 'application/json' },
      payload: JSON.stringify(purchaseOrder({ notes: 'x'.repeat(5 * 1024 * 1024) })),
    });
    assert.equal(huge.statusCode, 413);
    assert.equal(huge.json<Body>().code, 'PAYLOAD_TOO_LARGE');
    const notJson = await app.service.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${await app.token()}`, 'content-type': 'application/json' },
      payload: '{"po_number": ',
    });
    assertClientError(notJson, 'malformed JSON');
    const xml = await app.service.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${await app.token()}`, 'content-type': 'application/xml' },
      payload: '<a/>',
    });
    assert.equal(xml.statusCode, 415);
    const bigInteger = await app.call('POST', '/api/acme/procurement/sourcing/suppliers/v1', {
      body: { name: 'Big', country: 'DE', payment_terms_days: 1e20 },
    });
    assertClientError(bigInteger, 'integer out of range');
  });
});
