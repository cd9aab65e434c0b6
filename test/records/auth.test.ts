import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { createApiKey, revokeApiKey } from '../../src/records/auth/api-keys.js';
import {
  ordersPath,
  purchaseOrder,
  startRecordsApp,
  testJwtSecret,
  type RecordsTestApp,
} from './support/records-app.js';
import type { Body } from './support/records-app.js';

const secret = new TextEncoder().encode(testJwtSecret);

describe('records authentication, RBAC and rate limits', () => {
  let app: RecordsTestApp;
  before(async () => {
    app = await startRecordsApp({ RECORDS_RATE_LIMIT_PER_MINUTE: '25' });
  });
  after(() => app.close());
  const get = (headers: Record<string, string>, url = `/api/${ordersPath}`) =>
    app.service.app.inject({ method: 'GET', url, headers });

  test('no, malformed, forged, expired or foreign-issuer tokens are 401 AUTH_INVALID_TOKEN', async () => {
    const expired = await new SignJWT({ roles: ['admin'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('x')
      .setIssuer('https://issuer.test')
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(secret);
    const foreign = await new SignJWT({ roles: ['admin'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('x')
      .setIssuer('https://evil.test')
      .setExpirationTime('1h')
      .sign(secret);
    const forged = await new SignJWT({ roles: ['admin'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('x')
      .setIssuer('https://issuer.test')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('another-secret-0123456789abcdef01234'));
    for (const headers of <Record<string, string>[]>[
      {},
      { authorization: 'Bearer' },
      { authorization: 'Bearer not.a.jwt' },
      { authorization: `Bearer ${expired}` },
      { authorization: `Bearer ${foreign}` },
      { authorization: `Bearer ${forged}` },
      { 'x-api-key': 'wrk_nope' },
      { authorization: 'Basic YTpi' },
    ]) {
      const response = await get(headers);
      assert.equal(response.statusCode, 401, JSON.stringify(headers));
      assert.equal(response.json<Body>().code, 'AUTH_INVALID_TOKEN');
      assert.ok(response.json<Body>().requestId);
    }
    assert.equal((await get({}, '/api')).statusCode, 401, 'the schema listing needs a token');
  });

  test('API keys: X-API-Key or bearer, expiry, IP allowlist and immediate revocation', async () => {
    const key = await createApiKey(app.database.pool, { actor: 'ci', roles: ['viewer'] });
    assert.match(key.plaintext, /^wrk_/);
    const { rows } = await app.database.pool.query<{ key_hash: Buffer }>(
      `SELECT key_hash FROM records.api_keys WHERE id = $1`,
      [key.id],
    );
    assert.equal(rows[0]?.key_hash.length, 32, 'only the SHA-256 is stored');
    assert.equal((await get({ 'x-api-key': key.plaintext })).statusCode, 200);
    assert.equal((await get({ authorization: `Bearer ${key.plaintext}` })).statusCode, 200);
    await revokeApiKey(app.database.pool, key.id);
    assert.equal((await get({ 'x-api-key': key.plaintext })).statusCode, 401);
    const expiring = await createApiKey(app.database.pool, {
      actor: 'ci',
      roles: ['viewer'],
      ttlSeconds: 3600,
    });
    assert.equal((await get({ 'x-api-key': expiring.plaintext })).statusCode, 200);
    await app.database.pool.query(
      `UPDATE records.api_keys SET expires_at = now() - interval '1 s' WHERE id = $1`,
      [expiring.id],
    );
    assert.equal((await get({ 'x-api-key': expiring.plaintext })).statusCode, 401);
    const fenced = await createApiKey(app.database.pool, {
      actor: 'ci',
      roles: ['viewer'],
      allowedCidrs: ['10.0.0.0/8'],
    });
    assert.equal(
      (await get({ 'x-api-key': fenced.plaintext })).statusCode,
      401,
      'inject comes from 127.0.0.1',
    );
    const local = await createApiKey(app.database.pool, {
      actor: 'ci',
      roles: ['viewer'],
      allowedCidrs: ['127.0.0.0/8'],
    });
    assert.equal((await get({ 'x-api-key': local.plaintext })).statusCode, 200);
  });

  test('spec.access.roles: a role not listed for the operation is 403 RBAC_DENIED before any write', async () => {
    const viewer = { actor: 'vic', roles: ['viewer'] };
    assert.equal((await app.call('GET', `/api/${ordersPath}`, viewer)).statusCode, 200);
    const denied = await app.call('POST', `/api/${ordersPath}`, {
      ...viewer,
      body: purchaseOrder({ po_number: 'PO-555555' }),
    });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json<Body>().code, 'RBAC_DENIED');
    const { rows } = await app.database.pool.query(
      `SELECT 1 FROM rec_acme.procurement__purchasing__purchase_orders__v1 WHERE po_number = 'PO-555555'`,
    );
    assert.equal(rows.length, 0);
    const buyer = { actor: 'bea', roles: ['buyer'] };
    const created = await app.call('POST', `/api/${ordersPath}`, { ...buyer, body: purchaseOrder() });
    assert.equal(created.statusCode, 201);
    const url = `/api/${ordersPath}/${String(created.json<Body>().data.id)}`;
    assert.equal((await app.call('DELETE', url, buyer)).json<Body>().code, 'RBAC_DENIED');
    assert.equal((await app.call('GET', url, { actor: 'nobody', roles: [] })).statusCode, 403);
  });

  test('rate limits are per actor, with headers on every response and 429 RATE_LIMITED', async () => {
    const first = await app.call('GET', `/api/${ordersPath}`, { actor: 'limited' });
    assert.equal(first.headers['x-ratelimit-remaining'], '24');
    const reset = Number(first.headers['x-ratelimit-reset']);
    assert.ok(reset > Date.now() / 1000 && reset <= Date.now() / 1000 + 61);
    const notFound = await app.call('GET', `/api/${ordersPath}/00000000-0000-0000-0000-000000000000`, {
      actor: 'limited',
    });
    assert.equal(notFound.headers['x-ratelimit-remaining'], '23', 'error responses carry the headers too');
    for (let index = 0; index < 23; index += 1) await app.call('GET', '/api', { actor: 'limited' });
    const limited = await app.call('GET', `/api/${ordersPath}`, { actor: 'limited' });
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json<Body>().code, 'RATE_LIMITED');
    assert.equal(limited.headers['x-ratelimit-remaining'], '0');
    assert.ok(Number(limited.headers['x-ratelimit-reset']) > Date.now() / 1000);
    const other = await app.call('GET', `/api/${ordersPath}`, { actor: 'someone-else' });
    assert.equal(other.statusCode, 200, 'another actor from the same address is not limited');
  });
});
