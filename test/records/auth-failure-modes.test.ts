import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import type { JWTPayload } from 'jose';
import { freePort } from '../helpers/ports.js';
import {
  MovableClock,
  signToken,
  startJwksServer,
  testKey,
  type JwksServer,
  type TestKey,
} from './support/auth-fixtures.js';
import { authResources } from './support/auth-resources.js';
import { startRecordsApp, type RecordsTestApp } from './support/records-app.js';

const me = '/api/auth/me';

async function auditOf(app: RecordsTestApp, requestId: unknown) {
  await app.service.authAudit.flush();
  const { rows } = await app.database.pool.query<{ outcome: string; fail_mode: string }>(
    `SELECT outcome, fail_mode FROM records.auth_audit WHERE request_id = $1`,
    [requestId],
  );
  return rows[0];
}

/** Starts a private redis-server on a free port (never the machine's 6379). */
async function startRedis(): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${port}`).then(
      () => true,
      (error: { cause?: { code?: string } }) => error.cause?.code !== 'ECONNREFUSED',
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error('redis-server did not start');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

describe('auth failure modes: key set endpoint', () => {
  const clock = new MovableClock();
  let app: RecordsTestApp;
  let jwks: JwksServer;
  let k1: TestKey;
  let k2: TestKey;
  const token = (claims: JWTPayload, key: TestKey = k1) =>
    signToken(key, { iss: 'https://login.acme.test', aud: 'records', sub: 'alice', ...claims }, clock.now());
  const call = (value: string) =>
    app.service.app.inject({ method: 'GET', url: me, headers: { authorization: `Bearer ${value}` } });

  before(async () => {
    k1 = await testKey('k1');
    k2 = await testKey('k2');
    jwks = await startJwksServer([k1.jwk]);
    app = await startRecordsApp({}, { clock, resources: authResources(jwks.url) });
  });
  after(async () => {
    await app.close();
    await jwks.close();
  });

  test('endpoint down, key cached: allowed with fail mode JWKS_CACHED; not cached: 401; cache expired: 401', async () => {
    const first = await call(await token({}));
    assert.equal(first.statusCode, 200);
    assert.deepEqual(await auditOf(app, first.headers['x-request-id']), {
      outcome: 'success',
      fail_mode: 'NONE',
    });
    jwks.down = true;
    clock.advance(5 * 60_000 + 1000);
    const cached = await call(await token({ jti: 'a' }));
    assert.equal(cached.statusCode, 200, cached.body);
    assert.deepEqual(await auditOf(app, cached.headers['x-request-id']), {
      outcome: 'success',
      fail_mode: 'JWKS_CACHED',
    });
    const unknownKey = await call(await token({}, k2));
    assert.equal(unknownKey.statusCode, 401);
    assert.equal(unknownKey.json<{ code: string }>().code, 'AUTH_INVALID_TOKEN');
    clock.advance(60 * 60_000);
    const expired = await call(await token({ jti: 'b' }));
    assert.equal(expired.statusCode, 401, 'a key set older than an hour no longer stands in');
    jwks.down = false;
    clock.advance(5 * 60_000);
    assert.equal((await call(await token({ jti: 'c' }))).statusCode, 200, 'back once the endpoint answers');
  });
});

describe('auth failure modes: JWKS rotation', () => {
  const clock = new MovableClock();
  let app: RecordsTestApp;
  let jwks: JwksServer;
  let old: TestKey;
  let next: TestKey;
  const token = (key: TestKey) =>
    signToken(key, { iss: 'https://login.acme.test', aud: 'records', sub: 'alice' }, clock.now());
  const call = (value: string) =>
    app.service.app.inject({ method: 'GET', url: me, headers: { authorization: `Bearer ${value}` } });

  before(async () => {
    old = await testKey('old');
    next = await testKey('next');
    jwks = await startJwksServer([old.jwk]);
    app = await startRecordsApp({}, { clock, resources: authResources(jwks.url) });
  });
  after(async () => {
    await app.close();
    await jwks.close();
  });

  test('a new kid at the provider: the old cached key keeps working until the 5-minute refresh', async () => {
    const oldToken = await token(old);
    assert.equal((await call(oldToken)).statusCode, 200);
    const fetches = jwks.fetches;
    jwks.keys = [next.jwk];
    clock.advance(4 * 60_000);
    assert.equal((await call(oldToken)).statusCode, 200, 'remembered token, cached key');
    assert.equal((await call(await token(old))).statusCode, 200, 'a new token with the cached old key');
    assert.equal(jwks.fetches, fetches, 'no fetch before the refresh is due');
    clock.advance(60_000 + 1000);
    assert.equal((await call(oldToken)).statusCode, 401, 'after the refresh the old key is gone');
    assert.equal(jwks.fetches, fetches + 1);
    assert.equal((await call(await token(next))).statusCode, 200, 'the new key verifies');
  });

  test('an unknown kid fetches the set early, at most once per 30 seconds', async () => {
    const newer = await testKey('newer');
    const fetches = jwks.fetches;
    clock.advance(31_000);
    const unknown = await token(newer);
    assert.equal((await call(unknown)).statusCode, 401);
    assert.equal(jwks.fetches, fetches + 1, 'one early fetch');
    jwks.keys = [next.jwk, newer.jwk];
    assert.equal((await call(await token(newer))).statusCode, 401, 'cooldown: no second fetch yet');
    assert.equal(jwks.fetches, fetches + 1);
    clock.advance(31_000);
    assert.equal(
      (await call(await token(newer))).statusCode,
      200,
      'after the cooldown the new kid is fetched',
    );
  });
});

describe('auth failure modes: revocation store', () => {
  let jwks: JwksServer;
  let key: TestKey;
  const cleanup: (() => Promise<unknown>)[] = [];
  before(async () => {
    key = await testKey('k1');
    jwks = await startJwksServer([key.jwk]);
  });
  after(async () => {
    for (const step of cleanup.reverse()) await step();
    await jwks.close();
  });
  const call = async (app: RecordsTestApp, clock: MovableClock) =>
    app.service.app.inject({
      method: 'GET',
      url: me,
      headers: {
        authorization: `Bearer ${await signToken(key, { iss: 'https://login.acme.test', aud: 'records', sub: 'alice' }, clock.now())}`,
      },
    });

  for (const failOpen of [false, true]) {
    test(`Redis on a closed port: ${failOpen ? 'failOpen lets the request through, audited REVOCATION_FAIL_OPEN' : '503 REVOCATION_UNAVAILABLE'}`, async () => {
      const clock = new MovableClock();
      const app = await startRecordsApp(
        { REDIS_URL: `redis://127.0.0.1:${await freePort()}` },
        { clock, resources: authResources(jwks.url, { failOpen }) },
      );
      cleanup.push(() => app.close());
      const response = await call(app, clock);
      if (failOpen) {
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(await auditOf(app, response.headers['x-request-id']), {
          outcome: 'success',
          fail_mode: 'REVOCATION_FAIL_OPEN',
        });
      } else {
        assert.equal(response.statusCode, 503);
        assert.equal(response.json<{ code: string }>().code, 'REVOCATION_UNAVAILABLE');
        assert.deepEqual(await auditOf(app, response.headers['x-request-id']), {
          outcome: 'revocation_unavailable',
          fail_mode: 'NONE',
        });
      }
    });
  }

  test('a real Redis stopped: the cached copy serves for the grace period (REDIS_CACHED_ALLOWED), then 503', async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.stop());
    const clock = new MovableClock();
    const app = await startRecordsApp(
      { REDIS_URL: redis.url, RECORDS_REVOCATION_POLL_MS: '60000', RECORDS_REVOCATION_GRACE_MS: '5000' },
      { clock, resources: authResources(jwks.url) },
    );
    cleanup.push(() => app.close());
    const healthy = await call(app, clock);
    assert.equal(healthy.statusCode, 200, healthy.body);
    assert.deepEqual(await auditOf(app, healthy.headers['x-request-id']), {
      outcome: 'success',
      fail_mode: 'NONE',
    });
    await redis.stop();
    await app.service.auth.bindings.poll();
    const cached = await call(app, clock);
    assert.equal(cached.statusCode, 200);
    assert.deepEqual(await auditOf(app, cached.headers['x-request-id']), {
      outcome: 'success',
      fail_mode: 'REDIS_CACHED_ALLOWED',
    });
    clock.advance(6000);
    const refused = await call(app, clock);
    assert.equal(refused.statusCode, 503);
    assert.equal(refused.json<{ code: string }>().code, 'REVOCATION_UNAVAILABLE');
  });
});
