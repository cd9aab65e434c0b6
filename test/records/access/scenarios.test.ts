import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Body } from '../support/records-app.js';
import { accountsPath, dealsPath, startDealsApp, type ActorName, type DealsApp } from './support/deals.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
interface Deal {
  id: string;
  version: number;
  title: string;
  region: string;
  status: string;
  margin: number | null;
  [field: string]: unknown;
}
interface Reply {
  status: number;
  body: Omit<Body, 'data' | 'details'> & {
    data: unknown;
    included?: Record<string, Record<string, unknown>[]>;
    details: { fields?: string[] };
  };
  headers: Record<string, unknown>;
}

/**
 * One row of the access-control scenario table: who calls, what they send, what must come back.
 * `url` and `body` may read the fixtures (ids, current versions) made in `before`.
 */
interface Scenario {
  layer: string;
  name: string;
  actor: ActorName;
  method: Method;
  url: () => string;
  body?: () => unknown;
  headers?: Record<string, string>;
  status: number;
  code?: string;
  message?: string;
  check?: (reply: Reply) => void | Promise<void>;
}

describe('records access control: scenario table over the seven layers', () => {
  let deals: DealsApp;
  const ids: Record<string, string> = {};
  const version = async (key: string): Promise<number> => {
    const response = await deals.as('admin', 'GET', `${dealsPath}/${ids[key]}`);
    return response.json<{ data: Deal }>().data.version;
  };
  const rows = (reply: Reply) => reply.body.data as Deal[];
  const titles = (reply: Reply) =>
    rows(reply)
      .map((deal) => deal.title)
      .sort();
  const deal =
    (key: string, suffix = '') =>
    () =>
      `${dealsPath}/${ids[key]}${suffix}`;
  const list =
    (query = '') =>
    () =>
      `${dealsPath}${query}`;
  let versions: Record<string, number> = {};

  before(async () => {
    deals = await startDealsApp();
    const account = await deals.as('admin', 'POST', accountsPath, { name: 'Acme GmbH', credit_limit: 10000 });
    assert.equal(account.statusCode, 201, account.body);
    ids.account = account.json<{ data: { id: string } }>().data.id;
    const seed: Record<string, Record<string, unknown>> = {
      d1: { title: 'D1', region: 'north', owner: 'tom', amount: 500, margin: 0.3, account_id: ids.account },
      d2: { title: 'D2', region: 'north', owner: 'rita', amount: 1000, status: 'won' },
      d3: { title: 'D3', region: 'south', owner: 'sam', amount: 700 },
      d4: { title: 'D4', region: 'north', owner: 'rita', amount: 50, status: 'lost' },
    };
    for (const [key, body] of Object.entries(seed)) {
      const created = await deals.as('admin', 'POST', dealsPath, body);
      assert.equal(created.statusCode, 201, created.body);
      ids[key] = created.json<{ data: Deal }>().data.id;
    }
  });
  after(() => deals?.close());

  const scenarios: Scenario[] = [
    // Layer 1: route RBAC.
    {
      layer: '1 RBAC',
      name: 'no role may not list',
      actor: 'nobody',
      method: 'GET',
      url: list(),
      status: 403,
      code: 'RBAC_DENIED',
    },
    {
      layer: '1 RBAC',
      name: 'auditor may not create',
      actor: 'aud',
      method: 'POST',
      url: list(),
      body: () => ({ title: 'x', region: 'north', amount: 1 }),
      status: 403,
      code: 'RBAC_DENIED',
    },
    {
      layer: '1 RBAC',
      name: 'rep may not delete',
      actor: 'rita',
      method: 'DELETE',
      url: deal('d1'),
      status: 403,
      code: 'RBAC_DENIED',
    },
    {
      layer: '1 RBAC',
      name: 'trainee may not update',
      actor: 'tom',
      method: 'PATCH',
      url: deal('d1'),
      body: () => ({ version: 1, title: 'x' }),
      status: 403,
      code: 'RBAC_DENIED',
    },
    {
      layer: '1 RBAC',
      name: 'no role may not read by id',
      actor: 'nobody',
      method: 'GET',
      url: deal('d1'),
      status: 403,
      code: 'RBAC_DENIED',
    },
    {
      layer: '1 RBAC',
      name: 'admin lists every lost and won deal',
      actor: 'admin',
      method: 'GET',
      url: list(),
      status: 200,
      check: (reply) => assert.deepEqual(titles(reply), ['D1', 'D2', 'D3', 'D4']),
    },
    // Layer 2: ABAC (CEL).
    {
      layer: '2 ABAC',
      name: 'a rep may not create a deal above 100000',
      actor: 'rita',
      method: 'POST',
      url: list(),
      body: () => ({ title: 'big', region: 'north', amount: 200000 }),
      status: 403,
      code: 'ABAC_DENIED',
      message: 'Deals above 100000 need a manager',
    },
    {
      layer: '2 ABAC',
      name: 'a manager may',
      actor: 'mgr',
      method: 'POST',
      url: list(),
      body: () => ({ title: 'big', region: 'west', amount: 200000 }),
      status: 201,
    },
    {
      layer: '2 ABAC',
      name: 'a won deal cannot be updated (rule on the stored record)',
      actor: 'rita',
      method: 'PATCH',
      url: deal('d2'),
      body: () => ({ version: versions.d2, title: 'changed' }),
      status: 403,
      code: 'ABAC_DENIED',
      message: 'Won deals are closed',
    },
    {
      layer: '2 ABAC',
      name: 'an open deal can',
      actor: 'rita',
      method: 'PATCH',
      url: deal('d1'),
      body: () => ({ version: versions.d1, title: 'D1' }),
      status: 200,
    },
    {
      layer: '2 ABAC',
      name: 'a rep may not read a lost deal',
      actor: 'rita',
      method: 'GET',
      url: deal('d4'),
      status: 403,
      code: 'ABAC_DENIED',
      message: 'Lost deals are for managers',
    },
    {
      layer: '2 ABAC',
      name: 'a manager may read it',
      actor: 'mgr',
      method: 'GET',
      url: deal('d4'),
      status: 200,
    },
    {
      layer: '2 ABAC',
      name: 'a blocked actor may not list (rule on the actor)',
      actor: 'bob',
      method: 'GET',
      url: list('?filter[status]=open'),
      status: 403,
      code: 'ABAC_DENIED',
      message: 'Blocked actors may not read deals',
    },
    {
      layer: '2 ABAC',
      name: 'a list page holding a denied record is denied as a whole',
      actor: 'rita',
      method: 'GET',
      url: list(),
      status: 403,
      code: 'ABAC_DENIED',
      message: 'Lost deals are for managers',
    },
    // Layer 3: cross-schema RBAC through include.
    {
      layer: '3 cross-schema',
      name: 'an auditor may not include accounts',
      actor: 'aud',
      method: 'GET',
      url: list('?include=account_id'),
      status: 403,
      code: 'CROSS_SCHEMA_ACCESS_DENIED',
    },
    {
      layer: '3 cross-schema',
      name: 'nor on a read by id',
      actor: 'aud',
      method: 'GET',
      url: deal('d1', '?include=account_id'),
      status: 403,
      code: 'CROSS_SCHEMA_ACCESS_DENIED',
    },
    {
      layer: '3 cross-schema',
      name: 'a manager gets the account, with its masked credit limit',
      actor: 'mgr',
      method: 'GET',
      url: deal('d1', '?include=account_id'),
      status: 200,
      check: (reply) => {
        const [account] = reply.body.included?.account_id ?? [];
        assert.equal(account?.name, 'Acme GmbH');
        assert.equal(account?.credit_limit, null);
      },
    },
    {
      layer: '3 cross-schema',
      name: 'an admin sees the credit limit',
      actor: 'admin',
      method: 'GET',
      url: list('?include=account_id&filter[region]=north&filter[status]=open'),
      status: 200,
      check: (reply) => assert.equal(reply.body.included?.account_id?.[0]?.credit_limit, 10000),
    },
    {
      layer: '3 cross-schema',
      name: 'include of a field that is no reference is 400',
      actor: 'admin',
      method: 'GET',
      url: list('?include=title'),
      status: 400,
      code: 'VALIDATION_ERROR',
    },
    // Layer 4: row filters.
    {
      layer: '4 row filter',
      name: 'a south rep lists only south deals, total included',
      actor: 'sam',
      method: 'GET',
      url: list('?offset=0'),
      status: 200,
      check: (reply) => {
        assert.deepEqual(titles(reply), ['D3']);
        assert.equal((reply.body.pagination as { total?: number }).total, 1);
      },
    },
    {
      layer: '4 row filter',
      name: 'a north deal is not found for a south rep',
      actor: 'sam',
      method: 'GET',
      url: deal('d1'),
      status: 404,
      code: 'ENTITY_NOT_FOUND',
    },
    {
      layer: '4 row filter',
      name: 'nor can the south rep update it',
      actor: 'sam',
      method: 'PATCH',
      url: deal('d1'),
      body: () => ({ version: versions.d1, title: 'hijack' }),
      status: 404,
      code: 'ENTITY_NOT_FOUND',
    },
    {
      layer: '4 row filter',
      name: 'a trainee sees only the deals it owns',
      actor: 'tom',
      method: 'GET',
      url: list(),
      status: 200,
      check: (reply) => assert.deepEqual(titles(reply), ['D1']),
    },
    {
      layer: '4 row filter',
      name: 'counts only see matching rows',
      actor: 'rita',
      method: 'GET',
      url: list('?filter[status]=open&offset=0'),
      status: 200,
      check: (reply) => {
        assert.deepEqual(titles(reply), ['D1']);
        assert.equal((reply.body.pagination as { total?: number }).total, 1);
      },
    },
    {
      layer: '4 row filter',
      name: 'POST query is filtered too',
      actor: 'sam',
      method: 'POST',
      url: list('/query'),
      body: () => ({ where: { field: 'amount', op: 'gte', value: 0 } }),
      status: 200,
      check: (reply) => assert.deepEqual(titles(reply), ['D3']),
    },
    {
      layer: '4 row filter',
      name: 'an auditor has no row filter',
      actor: 'aud',
      method: 'GET',
      url: list('?filter[status]=open'),
      status: 200,
      check: (reply) => assert.deepEqual(titles(reply), ['D1', 'D3', 'big']),
    },
    // Layer 5: field read filter.
    {
      layer: '5 field read',
      name: 'a rep reads margin as null',
      actor: 'rita',
      method: 'GET',
      url: deal('d1'),
      status: 200,
      check: (reply) => {
        const data = reply.body.data as Deal;
        assert.equal(data.margin, null);
        assert.equal(data.title, 'D1');
        assert.equal(data.amount, 500);
      },
    },
    {
      layer: '5 field read',
      name: 'a manager reads it',
      actor: 'mgr',
      method: 'GET',
      url: deal('d1'),
      status: 200,
      check: (reply) => assert.equal((reply.body.data as Deal).margin, 0.3),
    },
    {
      layer: '5 field read',
      name: 'masked in lists',
      actor: 'sam',
      method: 'GET',
      url: list(),
      status: 200,
      check: (reply) => assert.ok(rows(reply).every((row) => row.margin === null)),
    },
    {
      layer: '5 field read',
      name: 'masked in a query projection',
      actor: 'rita',
      method: 'POST',
      url: list('/query'),
      body: () => ({ where: { field: 'status', value: 'open' }, select: ['title', 'margin'] }),
      status: 200,
      check: (reply) => assert.deepEqual(rows(reply), [{ title: 'D1', margin: null }]),
    },
    {
      layer: '5 field read',
      name: 'filtering on an unreadable field is 400',
      actor: 'rita',
      method: 'GET',
      url: list('?filter[margin][gt]=0.1'),
      status: 400,
      code: 'VALIDATION_ERROR',
    },
    {
      layer: '5 field read',
      name: 'sorting on it is 400',
      actor: 'rita',
      method: 'GET',
      url: list('?sort=-margin&filter[status]=open'),
      status: 400,
      code: 'VALIDATION_ERROR',
    },
    // Layer 6: field write filter.
    {
      layer: '6 field write',
      name: 'a rep may not create with a margin',
      actor: 'rita',
      method: 'POST',
      url: list(),
      body: () => ({ title: 'm', region: 'north', amount: 5, margin: 0.5 }),
      status: 403,
      code: 'FIELD_WRITE_DENIED',
      check: (reply) => assert.deepEqual(reply.body.details.fields, ['margin']),
    },
    {
      layer: '6 field write',
      name: 'nor patch margin and discount',
      actor: 'rita',
      method: 'PATCH',
      url: deal('d1'),
      body: () => ({ version: versions.d1, margin: 0.9, discount: 0.1 }),
      status: 403,
      code: 'FIELD_WRITE_DENIED',
      check: (reply) => assert.deepEqual(reply.body.details.fields, ['margin', 'discount']),
    },
    {
      layer: '6 field write',
      name: 'a manager may',
      actor: 'mgr',
      method: 'PATCH',
      url: deal('d3'),
      body: () => ({ version: versions.d3, discount: 0.1 }),
      status: 200,
    },
    // Layer 7: row-level security.
    {
      layer: '7 RLS',
      name: 'a north rep may not create a south deal',
      actor: 'rita',
      method: 'POST',
      url: list(),
      body: () => ({ title: 'elsewhere', region: 'south', amount: 5 }),
      status: 403,
      code: 'RLS_POLICY_DENIED',
    },
    {
      layer: '7 RLS',
      name: 'nor move a deal out of its region',
      actor: 'rita',
      method: 'PATCH',
      url: deal('d1'),
      body: () => ({ version: versions.d1, region: 'south' }),
      status: 403,
      code: 'RLS_POLICY_DENIED',
    },
    {
      layer: '7 RLS',
      name: 'a stale version under RLS is still 409',
      actor: 'rita',
      method: 'PATCH',
      url: deal('d1'),
      body: () => ({ version: 1, title: 'old' }),
      status: 409,
      code: 'OPTIMISTIC_LOCK_FAILED',
    },
    {
      layer: '7 RLS',
      name: 'idempotent create in an access session',
      actor: 'rita',
      method: 'POST',
      url: list(),
      body: () => ({ title: 'keyed', region: 'north', amount: 5 }),
      headers: { 'idempotency-key': 'access-key-1' },
      status: 201,
    },
    {
      layer: '7 RLS',
      name: 'its retry replays',
      actor: 'rita',
      method: 'POST',
      url: list(),
      body: () => ({ title: 'keyed', region: 'north', amount: 5 }),
      headers: { 'idempotency-key': 'access-key-1' },
      status: 201,
      check: (reply) => assert.equal(reply.headers['idempotent-replayed'], 'true'),
    },
    {
      layer: '7 RLS',
      name: 'a manager deletes a south deal',
      actor: 'mgr',
      method: 'DELETE',
      url: deal('d3'),
      status: 204,
    },
    {
      layer: '7 RLS',
      name: 'then the south rep sees nothing',
      actor: 'sam',
      method: 'GET',
      url: list('?offset=0'),
      status: 200,
      check: (reply) => assert.equal(rows(reply).length, 0),
    },
  ];

  test(`${scenarios.length} scenarios`, async (t) => {
    assert.ok(scenarios.length >= 35);
    for (const scenario of scenarios) {
      versions = {};
      for (const key of ['d1', 'd2', 'd3']) versions[key] = await version(key).catch(() => 0);
      await t.test(`[${scenario.layer}] ${scenario.actor}: ${scenario.name}`, async () => {
        const response = await deals.as(
          scenario.actor,
          scenario.method,
          scenario.url(),
          scenario.body?.(),
          scenario.headers,
        );
        const reply: Reply = {
          status: response.statusCode,
          body: response.body === '' ? ({} as Reply['body']) : response.json(),
          headers: response.headers,
        };
        assert.equal(reply.status, scenario.status, response.body);
        if (scenario.code) assert.equal(reply.body.code, scenario.code);
        if (scenario.message) assert.equal(reply.body.message, scenario.message);
        if (reply.status >= 400) assert.ok(reply.body.requestId, 'error bodies carry a requestId');
        await scenario.check?.(reply);
      });
    }
  });
});
