import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { SignJWT, type JWTPayload } from 'jose';
import { createApiKey, revokeApiKey } from '../../src/records/auth/api-keys.js';
import {
  MovableClock,
  signToken,
  startJwksServer,
  testKey,
  type JwksServer,
  type TestKey,
} from './support/auth-fixtures.js';
import { authResources } from './support/auth-resources.js';
import { ordersPath, purchaseOrder, startRecordsApp, type RecordsTestApp } from './support/records-app.js';

/** One row: who calls, through which strategy, what is sent, and what must come back and be audited. */
interface Scenario {
  name: string;
  actor: string | null;
  strategy: string;
  request: () => Promise<InjectOptions>;
  status: number;
  code?: string;
  check?: (body: Record<string, unknown>) => void;
  outcome: string;
  failMode?: string;
}

const me = '/api/auth/me';
const orders = `/api/${ordersPath}`;

describe('records authentication scenarios', () => {
  const clock = new MovableClock();
  let app: RecordsTestApp;
  let jwks: JwksServer;
  let key: TestKey;
  let rogue: TestKey;
  const keys: Record<string, string> = {};

  const jwt = (claims: JWTPayload, signer: TestKey = key) =>
    signToken(signer, { iss: 'https://login.acme.test', aud: 'records', ...claims }, clock.now());
  const bearer = async (claims: JWTPayload, extra: Partial<InjectOptions> = {}): Promise<InjectOptions> => ({
    method: 'GET',
    url: me,
    ...extra,
    headers: { authorization: `Bearer ${await jwt(claims)}`, ...(extra.headers as Record<string, string>) },
  });
  const apiKey =
    (header: string, value: () => string, extra: Partial<InjectOptions> = {}) =>
    () =>
      Promise.resolve<InjectOptions>({
        method: 'GET',
        url: me,
        ...extra,
        headers: { [header]: value(), ...(extra.headers as Record<string, string>) },
      });
  const now = () => Math.floor(clock.now().getTime() / 1000);

  before(async () => {
    key = await testKey('k1');
    rogue = await testKey('rogue');
    jwks = await startJwksServer([key.jwk]);
    app = await startRecordsApp(
      { RECORDS_TRUSTED_PROXIES: '127.0.0.1', RECORDS_RATE_LIMIT_PER_MINUTE: '30' },
      { clock, resources: authResources(jwks.url) },
    );
    const pool = app.database.pool;
    await pool.query(`CREATE SCHEMA auth_lookup; CREATE TABLE auth_lookup.departments (code text, role text);
      INSERT INTO auth_lookup.departments VALUES ('D7', 'approver'), ('D7', 'analyst');
      GRANT USAGE ON SCHEMA auth_lookup TO weft_records_app;
      GRANT SELECT ON auth_lookup.departments TO weft_records_app`);
    const make = async (name: string, options: Parameters<typeof createApiKey>[1]) => {
      const made = await createApiKey(pool, options);
      keys[name] = made.plaintext;
      return made;
    };
    await make('partner', { actor: 'partner-co', roles: ['viewer'] });
    await make('ops', { actor: 'ops-bot', roles: ['admin'] });
    const revoked = await make('revoked', { actor: 'old-bot', roles: ['viewer'] });
    await revokeApiKey(pool, revoked.id);
    const expiring = await make('expired', { actor: 'temp-bot', roles: ['viewer'], ttlSeconds: 60 });
    await pool.query(`UPDATE records.api_keys SET expires_at = now() - interval '1 s' WHERE id = $1`, [
      expiring.id,
    ]);
    await make('fenced', { actor: 'fenced-bot', roles: ['viewer'], allowedCidrs: ['10.9.0.0/16'] });
  });
  after(async () => {
    await app.close();
    await jwks.close();
  });

  const rows: Scenario[] = [
    {
      name: 'jwt: a valid token of the first issuer maps roles (prefix_strip, split, lowercase, static_append, lookup) and attributes',
      actor: 'alice',
      strategy: 'gateway/corp-jwt',
      request: () =>
        bearer({
          sub: 'alice',
          realm_access: { roles: ['ROLE_buyer', 'viewer'] },
          groups: 'finance, ops',
          app_role: 'AUDITOR',
          dept_code: 'D7',
          department: 'sales',
          email: 'Alice@Acme.TEST',
          tenure_days: 812,
          region: 'eu',
        }),
      status: 200,
      check: (body) => {
        const data = body.data as {
          actor_id: string;
          roles: string[];
          attributes: Record<string, unknown>;
          strategy: string;
        };
        assert.equal(data.actor_id, 'alice');
        assert.deepEqual(data.roles, [
          'buyer',
          'viewer',
          'finance',
          'ops',
          'auditor',
          'authenticated',
          'approver',
          'analyst',
        ]);
        assert.deepEqual(data.attributes, {
          department: 'SALES',
          email: 'alice@acme.test',
          tenant: 'login',
          tenure_days: 812,
          region_code: 'EU',
        });
        assert.equal(data.strategy, 'gateway/corp-jwt');
      },
      outcome: 'success',
    },
    {
      name: 'jwt: the second issuer with its own audience',
      actor: 'pat',
      strategy: 'gateway/corp-jwt',
      request: async () => ({
        method: 'GET',
        url: me,
        headers: {
          authorization: `Bearer ${await signToken(key, { sub: 'pat', iss: 'https://partners.acme.test', aud: 'partner-records' }, clock.now())}`,
        },
      }),
      status: 200,
      check: (body) =>
        assert.equal((body.data as { attributes: { tenant: string } }).attributes.tenant, 'partners'),
      outcome: 'success',
    },
    {
      name: 'jwt: the second issuer with the first issuer audience is refused',
      actor: null,
      strategy: 'none',
      request: async () => ({
        method: 'GET',
        url: me,
        headers: {
          authorization: `Bearer ${await signToken(key, { sub: 'pat', iss: 'https://partners.acme.test', aud: 'records' }, clock.now())}`,
        },
      }),
      status: 401,
      code: 'AUTH_INVALID_TOKEN',
      outcome: 'invalid_token',
    },
    {
      name: 'jwt: an issuer that is not declared',
      actor: null,
      strategy: 'none',
      request: () => bearer({ sub: 'mallory', iss: 'https://evil.test' }),
      status: 401,
      code: 'AUTH_INVALID_TOKEN',
      outcome: 'invalid_token',
    },
    {
      name: 'jwt: a wrong audience',
      actor: null,
      strategy: 'none',
      request: () => bearer({ sub: 'alice', aud: 'someone-else' }),
      status: 401,
      code: 'AUTH_INVALID_TOKEN',
      outcome: 'invalid_token',
    },
    {
      name: 'jwt: expired beyond the 30 s skew',
      actor: null,
      strategy: 'none',
      request: () => bearer({ sub: 'alice', exp: now() - 60 }),
      status: 401,
      code: 'AUTH_INVALID_TOKEN',
      outcome: 'invalid_token',
    },
    {
      name: 'jwt: expired 10 s ago, inside the skew',
      actor: 'alice',
      strategy: 'gateway/corp-jwt',
      request: () => bearer({ sub: 'alice', exp: now() - 10 }),
      status: 200,
      outcome: 'success',
    },
    {
      name: 'jwt: not valid before a time beyond the skew',
      actor: null,
      strategy: 'none',
      request: () => bearer({ sub: 'alice', nbf: now() + 120 }),
      status: 401,
      code: 'AUTH_INVALID_TOKEN',
      outcome: 'invalid_token',
    },
    {
      name: 'jwt: signed by a key the issuer does not publish',
      actor: null,
      strategy: 'none',
      request: async () => ({
        method: 'GET',
        url: me,
        headers: { authorization: `Bearer ${await jwt({ sub: 'alice' }, rogue)}` },
      }),
      status: 401,
      code: 'AUTH_INVALID_TOKEN',
      outcome: 'invalid_token',
    },
    {
      name: 'jwt: an HS256 token (algorithm confusion) is refused',
      actor: null,
      strategy: 'none',
      request: async () => {
        const forged = await new SignJWT({ sub: 'alice', iss: 'https://login.acme.test', aud: 'records' })
          .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
          .setExpirationTime('1h')
          .sign(new TextEncoder().encode(JSON.stringify(key.jwk)));
        return { method: 'GET', url: me, headers: { authorization: `Bearer ${forged}` } };
      },
      status: 401,
      code: 'AUTH_INVALID_TOKEN',
      outcome: 'invalid_token',
    },
    {
      name: 'jwt: no actorId claim (sub) is 401',
      actor: null,
      strategy: 'none',
      request: () => bearer({ groups: 'admin' }),
      status: 401,
      code: 'AUTH_INVALID_TOKEN',
      outcome: 'invalid_token',
    },
    {
      name: 'jwt: a malformed bearer token',
      actor: null,
      strategy: 'none',
      request: () =>
        Promise.resolve({ method: 'GET', url: me, headers: { authorization: 'Bearer not.a.jwt' } }),
      status: 401,
      code: 'AUTH_INVALID_TOKEN',
      outcome: 'invalid_token',
    },
    {
      name: 'no credentials at all',
      actor: null,
      strategy: 'none',
      request: () => Promise.resolve({ method: 'GET', url: orders }),
      status: 401,
      code: 'AUTH_INVALID_TOKEN',
      outcome: 'invalid_token',
    },
    {
      name: 'jwt: a viewer creating an order is 403 RBAC_DENIED, audited denied_rbac with the operation',
      actor: 'victor',
      strategy: 'gateway/corp-jwt',
      request: () =>
        bearer(
          { sub: 'victor', groups: 'viewer' },
          { method: 'POST', url: orders, payload: purchaseOrder() },
        ),
      status: 403,
      code: 'RBAC_DENIED',
      outcome: 'denied_rbac',
    },
    {
      name: 'jwt: a buyer creates an order',
      actor: 'bea',
      strategy: 'gateway/corp-jwt',
      request: () =>
        bearer({ sub: 'bea', groups: 'buyer' }, { method: 'POST', url: orders, payload: purchaseOrder() }),
      status: 201,
      outcome: 'success',
    },
    {
      name: 'api_key: partner key through the trusted proxy from an allowed IPv4 address',
      actor: 'partner-co',
      strategy: 'gateway/partner-keys',
      request: apiKey('x-partner-key', () => keys.partner ?? '', {
        headers: { 'x-forwarded-for': '10.1.2.3' },
      }),
      status: 200,
      check: (body) => assert.equal((body.data as { actor_id: string }).actor_id, 'partner-co'),
      outcome: 'success',
    },
    {
      name: 'api_key: partner key from an allowed IPv6 address',
      actor: 'partner-co',
      strategy: 'gateway/partner-keys',
      request: apiKey('x-partner-key', () => keys.partner ?? '', {
        headers: { 'x-forwarded-for': '2001:db8::42' },
      }),
      status: 200,
      outcome: 'success',
    },
    {
      name: 'api_key: partner key from an IPv4 address outside the allowlist',
      actor: null,
      strategy: 'none',
      request: apiKey('x-partner-key', () => keys.partner ?? '', {
        headers: { 'x-forwarded-for': '192.0.2.7' },
      }),
      status: 401,
      code: 'AUTH_INVALID_TOKEN',
      outcome: 'invalid_token',
    },
    {
      name: 'api_key: partner key from an IPv6 address outside the allowlist',
      actor: null,
      strategy: 'none',
      request: apiKey('x-partner-key', () => keys.partner ?? '', {
        headers: { 'x-forwarded-for': '2001:db9::1' },
      }),
      status: 401,
      code: 'AUTH_INVALID_TOKEN',
      outcome: 'invalid_token',
    },
    {
      name: 'api_key: X-Forwarded-For from an untrusted peer is ignored (no spoofing into the allowlist)',
      actor: null,
      strategy: 'none',
      request: apiKey('x-partner-key', () => keys.partner ?? '', {
        headers: { 'x-forwarded-for': '10.1.2.3' },
        remoteAddress: '192.0.2.50',
      }),
      status: 401,
      code: 'AUTH_INVALID_TOKEN',
      outcome: 'invalid_token',
    },
    {
      name: 'api_key: ops key in X-API-Key, no allowlist',
      actor: 'ops-bot',
      strategy: 'ops-keys',
      request: apiKey('x-api-key', () => keys.ops ?? ''),
      status: 200,
      outcome: 'success',
    },
    {
      name: 'api_key: a revoked key',
      actor: null,
      strategy: 'none',
      request: apiKey('x-api-key', () => keys.revoked ?? ''),
      status: 401,
      code: 'AUTH_INVALID_TOKEN',
      outcome: 'invalid_token',
    },
    {
      name: 'api_key: a key past its TTL',
      actor: null,
      strategy: 'none',
      request: apiKey('x-api-key', () => keys.expired ?? ''),
      status: 401,
      code: 'AUTH_INVALID_TOKEN',
      outcome: 'invalid_token',
    },
    {
      name: 'api_key: an unknown key',
      actor: null,
      strategy: 'none',
      request: apiKey('x-api-key', () => `wrk_${'A'.repeat(43)}`),
      status: 401,
      code: 'AUTH_INVALID_TOKEN',
      outcome: 'invalid_token',
    },
    {
      name: "api_key: outside the key's own --allow range",
      actor: null,
      strategy: 'none',
      request: apiKey('x-api-key', () => keys.fenced ?? ''),
      status: 401,
      code: 'AUTH_INVALID_TOKEN',
      outcome: 'invalid_token',
    },
    {
      name: 'composite: JWT (weight 10) is tried before the partner key (weight 20)',
      actor: 'alice',
      strategy: 'gateway/corp-jwt',
      request: () =>
        bearer(
          { sub: 'alice' },
          { headers: { 'x-partner-key': keys.partner ?? '', 'x-forwarded-for': '10.1.2.3' } },
        ),
      status: 200,
      check: (body) => assert.equal((body.data as { actor_id: string }).actor_id, 'alice'),
      outcome: 'success',
    },
    {
      name: 'composite: an invalid JWT falls through to a valid partner key (first success wins)',
      actor: 'partner-co',
      strategy: 'gateway/partner-keys',
      request: apiKey('x-partner-key', () => keys.partner ?? '', {
        headers: { authorization: 'Bearer broken', 'x-forwarded-for': '10.1.2.3' },
      }),
      status: 200,
      outcome: 'success',
    },
    {
      name: 'role binding: roles, scope and attributes are added to the identity',
      actor: 'carol',
      strategy: 'gateway/corp-jwt',
      request: () => bearer({ sub: 'carol', department: 'hr' }),
      status: 200,
      check: (body) => {
        const data = body.data as { roles: string[]; attributes: Record<string, unknown>; scope: unknown };
        assert.deepEqual(data.roles, ['authenticated', 'approver']);
        assert.deepEqual(data.scope, { region: 'EU', stores: ['s1', 's2'] });
        assert.equal(data.attributes.department, 'FINANCE', 'the binding wins over the claim');
        assert.equal(data.attributes.tenure_days, 400);
      },
      outcome: 'success',
    },
    {
      name: 'role binding: an expired binding grants nothing',
      actor: 'dave',
      strategy: 'gateway/corp-jwt',
      request: () => bearer({ sub: 'dave' }, { method: 'POST', url: orders, payload: purchaseOrder() }),
      status: 403,
      code: 'RBAC_DENIED',
      outcome: 'denied_rbac',
    },
    {
      name: 'role binding: a live binding grants its role',
      actor: 'erin',
      strategy: 'gateway/corp-jwt',
      request: () => bearer({ sub: 'erin' }, { method: 'POST', url: orders, payload: purchaseOrder() }),
      status: 201,
      outcome: 'success',
    },
    {
      name: 'role bindings: revoking needs platform-admin',
      actor: 'erin',
      strategy: 'gateway/corp-jwt',
      request: () =>
        bearer({ sub: 'erin' }, { method: 'POST', url: '/api/platform/role-bindings/erin-buyer/revoke' }),
      status: 403,
      code: 'RBAC_DENIED',
      outcome: 'denied_rbac',
    },
    {
      name: 'role bindings: revoking an unknown binding is 404',
      actor: 'root',
      strategy: 'gateway/corp-jwt',
      request: () =>
        bearer({ sub: 'root' }, { method: 'POST', url: '/api/platform/role-bindings/nobody/revoke' }),
      status: 404,
      code: 'NOT_FOUND',
      outcome: 'success',
    },
    {
      name: 'role bindings: a hostile binding name is 400',
      actor: 'root',
      strategy: 'gateway/corp-jwt',
      request: () =>
        bearer({ sub: 'root' }, { method: 'DELETE', url: "/api/platform/role-bindings/x';drop" }),
      status: 400,
      code: 'VALIDATION_ERROR',
      outcome: 'success',
    },
    {
      name: 'auth audit: reading it needs platform-auditor',
      actor: 'alice',
      strategy: 'gateway/corp-jwt',
      request: () => bearer({ sub: 'alice', groups: 'admin' }, { url: '/api/platform/audit/auth' }),
      status: 403,
      code: 'RBAC_DENIED',
      outcome: 'denied_rbac',
    },
    {
      name: 'auth audit: an auditor reads it, filtered by outcome',
      actor: 'root',
      strategy: 'gateway/corp-jwt',
      request: () => bearer({ sub: 'root' }, { url: '/api/platform/audit/auth?outcome=denied_rbac&limit=5' }),
      status: 200,
      check: (body) => {
        const data = body.data as { outcome: string; actor: string; strategy: string; fail_mode: string }[];
        assert.ok(data.length > 0 && data.every((entry) => entry.outcome === 'denied_rbac'));
        assert.ok(data.some((entry) => entry.actor === 'victor' && entry.strategy === 'gateway/corp-jwt'));
      },
      outcome: 'success',
    },
    {
      name: 'auth audit: a bad filter is 400',
      actor: 'root',
      strategy: 'gateway/corp-jwt',
      request: () => bearer({ sub: 'root' }, { url: '/api/platform/audit/auth?outcome=maybe' }),
      status: 400,
      code: 'VALIDATION_ERROR',
      outcome: 'success',
    },
  ];

  let passed = 0;
  for (const row of rows) {
    test(row.name, async () => {
      const response = await app.service.app.inject(await row.request());
      const body = response.json<Record<string, unknown>>();
      assert.equal(response.statusCode, row.status, `${row.name}: ${response.body}`);
      if (row.code) assert.equal(body.code, row.code);
      row.check?.(body);
      await app.service.authAudit.flush();
      const { rows: audited } = await app.database.pool.query<{
        actor: string | null;
        strategy: string;
        outcome: string;
        fail_mode: string;
      }>(`SELECT actor, strategy, outcome, fail_mode FROM records.auth_audit WHERE request_id = $1`, [
        response.headers['x-request-id'],
      ]);
      assert.deepEqual(audited, [
        { actor: row.actor, strategy: row.strategy, outcome: row.outcome, fail_mode: row.failMode ?? 'NONE' },
      ]);
      passed += 1;
    });
  }

  test('revocation: a revoked binding refuses the tokens issued before it, at once; a later token works', async () => {
    const before = await jwt({ sub: 'frank' });
    const call = (token: string) =>
      app.service.app.inject({ method: 'GET', url: me, headers: { authorization: `Bearer ${token}` } });
    assert.equal((await call(before)).statusCode, 200);
    clock.advance(2000);
    const revoke = await app.service.app.inject({
      method: 'POST',
      url: '/api/platform/role-bindings/frank-buyer/revoke',
      headers: { authorization: `Bearer ${await jwt({ sub: 'root' })}` },
    });
    assert.equal(revoke.statusCode, 204);
    const refused = await call(before);
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json<{ code: string }>().code, 'AUTH_INVALID_TOKEN');
    clock.advance(2000);
    const fresh = await call(await jwt({ sub: 'frank' }));
    assert.equal(fresh.statusCode, 200);
    assert.ok(
      !fresh.json<{ data: { roles: string[] } }>().data.roles.includes('buyer'),
      'the revoked binding grants nothing',
    );
    await app.service.authAudit.flush();
    const { rows: audited } = await app.database.pool.query(
      `SELECT outcome, strategy FROM records.auth_audit WHERE request_id = $1`,
      [refused.headers['x-request-id']],
    );
    assert.deepEqual(audited, [{ outcome: 'revoked', strategy: 'gateway/corp-jwt' }]);
    passed += 1;
  });

  test('rate limits are audited as rate_limited', async () => {
    const token = await jwt({ sub: 'hasty' });
    let last;
    for (let index = 0; index < 31; index += 1)
      last = await app.service.app.inject({
        method: 'GET',
        url: me,
        headers: { authorization: `Bearer ${token}` },
      });
    assert.equal(last?.statusCode, 429);
    await app.service.authAudit.flush();
    const { rows: audited } = await app.database.pool.query(
      `SELECT outcome FROM records.auth_audit WHERE request_id = $1`,
      [last?.headers['x-request-id']],
    );
    assert.deepEqual(audited, [{ outcome: 'rate_limited' }]);
    passed += 1;
  });

  test('scenario count', () => {
    console.log(`# auth scenario rows passed: ${passed} of ${rows.length + 2}`);
    assert.ok(rows.length + 2 >= 30);
  });
});
