import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { HttpServer } from '../../src/platform/http/http-server.js';
import { hostileRequest, toJsonText, urlOf, type Plausible } from '../helpers/hostile-values.js';
import { routeTable, type LooseSchema, type RouteEntry } from '../helpers/route-table.js';
import { createEngineFixture, type EngineFixture } from '../workflow/engine/api/engine-fixture.js';
import { startRecordsApp, suppliersPath, type RecordsTestApp } from '../records/support/records-app.js';

// Enough to meet every class of hostile value on every route while the whole file stays near a minute.
const runsPerRoute = Number(process.env.HOSTILE_RUNS_PER_ROUTE ?? 40);

// Routes that end the caller's session go last, so the others run with a working token.
const sessionEnding = /logout|revoke|rotate|change-password/;

/**
 * Sends generated hostile requests (NUL, lone surrogates, huge numbers, impossible dates, deep
 * nesting, long strings in every path parameter, query parameter and body property) to every route
 * of a server, as an administrator, and fails on the first answer of 500 or more.
 */
async function assertNoServerErrors(
  app: HttpServer,
  headers: () => Promise<Record<string, string>>,
  known: Plausible,
  describeHidden: (route: RouteEntry) => RouteEntry = (route) => route,
): Promise<number> {
  const routes = routeTable(app)
    .map(describeHidden)
    .sort((a, b) => Number(sessionEnding.test(a.url)) - Number(sessionEnding.test(b.url)));
  assert.ok(routes.length > 20, `expected the whole route table, found ${routes.length}`);
  for (const route of routes) await assertRouteHolds(app, route, headers, known);
  return routes.length;
}

async function assertRouteHolds(
  app: HttpServer,
  route: RouteEntry,
  headers: () => Promise<Record<string, string>>,
  known: Plausible,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(hostileRequest(route, known), async (request) => {
      const url = urlOf(route, request);
      const response = await app.inject({
        method: route.method as 'GET',
        url,
        headers: {
          ...(await headers()),
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(request.body === undefined ? {} : { payload: toJsonText(request.body) }),
      });
      assert.ok(
        response.statusCode < 500,
        `${route.method} ${route.url} → ${response.statusCode} ${response.body.slice(0, 300)}\nurl: ${url.slice(0, 300)}`,
      );
    }),
    { numRuns: runsPerRoute, endOnFailure: true },
  );
}

const recordBodyFields: Record<string, LooseSchema> = {
  name: { type: 'string' },
  country: { type: 'string' },
  email: { type: 'string' },
  payment_terms_days: { type: 'integer' },
  rating: { type: 'number' },
  tags: { type: 'object' },
  version: { type: 'integer' },
  at: { type: 'string', format: 'date-time' },
  reason: { type: 'string' },
  q: { type: 'string' },
  where: { type: 'object' },
  limit: { type: 'integer' },
};

describe('no hostile input gets a 5xx from any route', () => {
  let workflow: EngineFixture;
  let records: RecordsTestApp;
  let supplierId: string;
  before(async () => {
    workflow = await createEngineFixture();
    records = await startRecordsApp({ RECORDS_RATE_LIMIT_PER_MINUTE: '1000000' });
    const created = await records.call('POST', `/api/${suppliersPath}`, {
      body: { name: 'Property Supplies', country: 'DE' },
    });
    supplierId = (created.json() as { data: { id: string } }).data.id;
  });
  after(async () => {
    await workflow.close();
    await records.close();
  });

  test('workflow', async () => {
    const names: Record<string, string> = {
      org_id: workflow.orgId,
      process_group_id: workflow.groupId,
      'x-org-id': workflow.orgId,
    };
    const count = await assertNoServerErrors(
      workflow.workflow.service.app,
      () =>
        Promise.resolve({
          authorization: `Bearer ${workflow.tokens.admin}`,
          'x-org-id': workflow.orgId,
        }),
      // Ids in paths are UUIDs: a well-formed one gets past validation to the lookup.
      {
        byName: (name) =>
          names[name] ?? (name.endsWith('id') ? '00000000-0000-4000-8000-000000000001' : undefined),
      },
    );
    console.log(`workflow: ${count} routes × ${runsPerRoute} hostile requests, no 5xx`);
  });

  test('records', async () => {
    const [org, app, domain, object, version] = suppliersPath.split('/');
    const names: Record<string, string | undefined> = { org, app, domain, object, version, id: supplierId };
    const count = await assertNoServerErrors(
      records.service.app,
      async () => ({
        authorization: `Bearer ${await records.token('alice', ['admin', 'platform-auditor'])}`,
      }),
      { byName: (name) => names[name] },
      // Record routes are hidden from Fastify's OpenAPI document (records generates one per schema):
      // give their bodies the fields of suppliers and of the time-machine, search and query bodies.
      (route) =>
        route.body === undefined && route.method !== 'GET' && route.method !== 'DELETE'
          ? { ...route, body: { type: 'object', properties: recordBodyFields } }
          : route,
    );
    console.log(`records: ${count} routes × ${runsPerRoute} hostile requests, no 5xx`);
  });
});
