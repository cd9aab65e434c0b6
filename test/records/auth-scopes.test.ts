import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import type { JWTPayload } from 'jose';
import { loadConfig } from '../../src/platform/config/index.js';
import { createApiKey } from '../../src/records/auth/api-keys.js';
import { createApiKeyCommand } from '../../src/records/cli/records-commands.js';
import { captureLogs } from '../helpers/log-capture.js';
import { scopesOfClaims } from '../../src/records/auth/scopes/token-scopes.js';
import { validateAuthStrategy } from '../../src/records/auth/strategies/strategy-definition.js';
import {
  MovableClock,
  signToken,
  startJwksServer,
  testKey,
  type JwksServer,
  type TestKey,
} from './support/auth-fixtures.js';
import { ordersPath, purchaseOrder, startRecordsApp, type RecordsTestApp } from './support/records-app.js';

const orders = `/api/${ordersPath}`;

function strategies(jwksUrl: string): Record<string, string> {
  return {
    'scoped-strategies.yaml': `
apiVersion: weft.dev/v1
kind: AuthStrategy
metadata: { name: scoped-jwt }
spec:
  type: jwt
  jwt:
    jwksUrl: ${jwksUrl}
    issuer: https://login.acme.test
    audience: records
    claimMapping:
      actorId: sub
      roles: [{ path: roles }]
  requiredScopes:
    "*": [records]
    list: [records, "records:read"]
    read: [records, "records:read"]
    create: ["records:write"]
    identity: []
---
apiVersion: weft.dev/v1
kind: AuthStrategy
metadata: { name: scoped-keys }
spec:
  type: api_key
  apiKey: { headerName: X-API-Key }
  requiredScopes:
    list: ["records:read"]
    create: ["records:write"]
`,
  };
}

/** One row: the credential, the request, and what must come back. */
interface Scenario {
  name: string;
  request: () => Promise<InjectOptions>;
  status: number;
  missing?: string[];
}

describe('token scopes (requiredScopes of jwt and api_key strategies)', () => {
  const clock = new MovableClock();
  let app: RecordsTestApp;
  let jwks: JwksServer;
  let key: TestKey;
  const keys: Record<string, string> = {};

  const bearer =
    (claims: JWTPayload, request: Partial<InjectOptions> = {}) =>
    async (): Promise<InjectOptions> => ({
      method: 'GET',
      url: orders,
      ...request,
      headers: {
        authorization: `Bearer ${await signToken(
          key,
          { iss: 'https://login.acme.test', aud: 'records', sub: 'sam', roles: ['admin'], ...claims },
          clock.now(),
        )}`,
      },
    });
  const apiKey =
    (name: string, request: Partial<InjectOptions> = {}) =>
    (): Promise<InjectOptions> =>
      Promise.resolve({ method: 'GET', url: orders, ...request, headers: { 'x-api-key': keys[name] ?? '' } });
  // A getter: each request creates a new purchase order (po_number is unique).
  const create = {
    method: 'POST' as const,
    get payload() {
      return purchaseOrder();
    },
  };

  before(async () => {
    key = await testKey('k1');
    jwks = await startJwksServer([key.jwk]);
    app = await startRecordsApp({}, { clock, resources: strategies(jwks.url) });
    for (const [name, scopes] of [
      ['reader', ['records:read']],
      ['writer', ['records:read', 'records:write']],
      ['bare', []],
    ] as const) {
      const made = await createApiKey(app.database.pool, {
        actor: `${name}-bot`,
        roles: ['admin'],
        scopes: [...scopes],
      });
      keys[name] = made.plaintext;
    }
  });
  after(async () => {
    await app.close();
    await jwks.close();
  });

  const rows: Scenario[] = [
    {
      name: 'jwt: `scope` holding every listed scope lists records',
      request: bearer({ scope: 'records records:read' }),
      status: 200,
    },
    {
      name: 'jwt: no scope claim is 401 AUTH_INSUFFICIENT_SCOPES naming what is missing',
      request: bearer({}),
      status: 401,
      missing: ['records', 'records:read'],
    },
    {
      name: 'jwt: one of two required scopes is not enough',
      request: bearer({ scope: 'records' }),
      status: 401,
      missing: ['records:read'],
    },
    {
      name: 'jwt: the `scp` claim as a list',
      request: bearer({ scp: ['records', 'records:read'] }),
      status: 200,
    },
    {
      name: 'jwt: the `scp` claim as a space-separated string',
      request: bearer({ scp: 'records records:read' }),
      status: 200,
    },
    {
      name: 'jwt: `scope` and `scp` together grant their union',
      request: bearer({ scope: 'records', scp: ['records:read'] }),
      status: 200,
    },
    {
      name: 'jwt: scopes are compared exactly (no prefix or case folding)',
      request: bearer({ scope: 'RECORDS records:read:all' }),
      status: 401,
      missing: ['records', 'records:read'],
    },
    {
      name: 'jwt: an operation with its own entry needs that entry (create: records:write), not `*`',
      request: bearer({ scope: 'records records:read' }, create),
      status: 401,
      missing: ['records:write'],
    },
    {
      name: 'jwt: create with records:write',
      request: bearer({ scope: 'records:write' }, create),
      status: 201,
    },
    {
      name: 'jwt: an operation not listed falls back to `*` (schemas: GET /api)',
      request: bearer({ scope: 'records:read' }, { url: '/api' }),
      status: 401,
      missing: ['records'],
    },
    { name: 'jwt: `*` satisfied', request: bearer({ scope: 'records' }, { url: '/api' }), status: 200 },
    {
      name: 'jwt: an operation listed with [] needs no scope, even under `*` (identity)',
      request: bearer({}, { url: '/api/auth/me' }),
      status: 200,
    },
    {
      name: 'jwt: the metrics operation falls back to `*` too',
      request: bearer({ roles: ['platform-metrics'] }, { url: '/api/metrics' }),
      status: 401,
      missing: ['records'],
    },
    { name: 'api key: a key with records:read lists records', request: apiKey('reader'), status: 200 },
    {
      name: 'api key: the same key cannot create (records:write missing)',
      request: apiKey('reader', create),
      status: 401,
      missing: ['records:write'],
    },
    { name: 'api key: a key with records:write creates', request: apiKey('writer', create), status: 201 },
    {
      name: 'api key: a key without scopes is refused where a scope is listed',
      request: apiKey('bare'),
      status: 401,
      missing: ['records:read'],
    },
    {
      name: 'api key: a key without scopes may do what its strategy lists nothing for (no `*`)',
      request: apiKey('bare', { url: '/api' }),
      status: 200,
    },
  ];

  for (const row of rows) {
    test(row.name, async () => {
      const response = await app.service.app.inject(await row.request());
      assert.equal(response.statusCode, row.status, response.body);
      if (row.missing === undefined) return;
      const body = response.json<{
        code: string;
        details: { missing_scopes: string[] };
        requestId: string;
      }>();
      assert.equal(body.code, 'AUTH_INSUFFICIENT_SCOPES');
      assert.deepEqual(body.details.missing_scopes, row.missing);
      assert.equal(
        response.headers['www-authenticate'],
        `Bearer error="insufficient_scope", scope="${row.missing.join(' ')}"`,
      );
      await app.service.authAudit.flush();
      const { rows: audited } = await app.database.pool.query<{ outcome: string }>(
        `SELECT outcome FROM records.auth_audit WHERE request_id = $1`,
        [body.requestId],
      );
      assert.deepEqual(audited, [{ outcome: 'denied_scopes' }]);
    });
  }

  test('/api/auth/me shows the scopes the credential grants', async () => {
    const jwt = await app.service.app.inject(
      await bearer({ scp: ['records', 'x:y'] }, { url: '/api/auth/me' })(),
    );
    assert.deepEqual(jwt.json<{ data: { scopes: string[] } }>().data.scopes, ['records', 'x:y']);
  });

  test('`weft records api-key create --scope` stores the scopes; a malformed scope is refused', async () => {
    const config = loadConfig({ RECORDS_DATABASE_URL: app.database.url });
    const logger = captureLogs('fatal').logger;
    const made = await createApiKeyCommand(config, logger, {
      actor: 'cli-bot',
      roles: 'admin',
      scope: ['records:read records', 'records:write'],
    });
    const { rows } = await app.database.pool.query<{ scopes: string[] }>(
      `SELECT scopes FROM records.api_keys WHERE id = $1`,
      [made.id],
    );
    assert.deepEqual(rows, [{ scopes: ['records:read', 'records', 'records:write'] }]);
    const listed = await app.service.app.inject({
      method: 'GET',
      url: orders,
      headers: { 'x-api-key': made.plaintext },
    });
    assert.equal(listed.statusCode, 200);
    await assert.rejects(
      createApiKeyCommand(config, logger, { actor: 'cli-bot', roles: 'admin', scope: ['bad"scope'] }),
      /--scope "bad\\"scope" is not a scope token/,
    );
  });

  test('a token remembered from an earlier request is checked again for each operation', async () => {
    const request = await bearer({ scope: 'records records:read' })();
    assert.equal((await app.service.app.inject(request)).statusCode, 200);
    const again = await app.service.app.inject({ ...request, method: 'POST', payload: purchaseOrder() });
    assert.equal(again.statusCode, 401);
    assert.equal(again.json<{ code: string }>().code, 'AUTH_INSUFFICIENT_SCOPES');
  });
});

describe('reading scopes and declaring requiredScopes', () => {
  test('scope and scp claims: strings split on spaces, lists, both merged; other shapes ignored', () => {
    assert.deepEqual([...scopesOfClaims({ scope: 'a b  c' })], ['a', 'b', 'c']);
    assert.deepEqual([...scopesOfClaims({ scp: ['a', 'b c', 7] })], ['a', 'b', 'c']);
    assert.deepEqual([...scopesOfClaims({ scope: 'a', scp: 'a b' })], ['a', 'b']);
    assert.deepEqual([...scopesOfClaims({ scope: { a: 1 }, scp: 5 })], []);
    assert.deepEqual([...scopesOfClaims({ scope: 'ok bad"quote' })], ['ok']);
  });

  test('requiredScopes is refused on oidc and composite strategies, for unknown operations and for bad scope tokens', () => {
    const base = {
      jwt: { issuer: 'https://i.test', jwksUrl: 'https://i.test/jwks', claimMapping: { actorId: 'sub' } },
    };
    assert.equal(
      validateAuthStrategy('ok', { type: 'jwt', ...base, requiredScopes: { read: ['r'], '*': ['x'] } }).ok,
      true,
    );
    const problems = (spec: Record<string, unknown>) => {
      const result = validateAuthStrategy('s', spec);
      return result.ok ? [] : result.problems.map((problem) => problem.path);
    };
    assert.ok(
      problems({ type: 'jwt', ...base, requiredScopes: { fly: ['r'] } }).includes('spec.requiredScopes.fly'),
    );
    assert.deepEqual(problems({ type: 'jwt', ...base, requiredScopes: { read: ['has space'] } }), [
      'spec.requiredScopes.read.0',
    ]);
    assert.deepEqual(
      problems({ type: 'composite', strategies: [{ name: 'a' }], requiredScopes: { read: ['r'] } }),
      ['spec.requiredScopes'],
    );
    assert.deepEqual(
      problems({
        type: 'oidc',
        oidc: {
          clientId: 'c',
          discoveryUrl: 'https://i.test',
          redirectUri: 'https://app.test/cb',
          claimMapping: { actorId: 'sub' },
        },
        requiredScopes: { read: ['r'] },
      }),
      ['spec.requiredScopes'],
    );
  });
});
