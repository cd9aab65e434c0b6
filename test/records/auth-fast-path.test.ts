import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SignJWT } from 'jose';
import type { Pool } from '../../src/platform/database/pool.js';
import { Authenticator } from '../../src/records/auth/authenticator.js';
import { JwtVerifier } from '../../src/records/auth/jwt-verifier.js';
import { WindowCounter } from '../../src/records/http/actor-rate-limits.js';
import { CursorCodec } from '../../src/records/records/cursor.js';

const secret = 'fast-path-secret-0123456789abcdef0123456';
const config = {
  issuer: 'https://issuer.test',
  audience: undefined,
  secret,
  publicKey: undefined,
  rolesClaim: 'roles',
};

/** A JWT expiring at `exp` (unix seconds). */
function token(exp: number): Promise<string> {
  return new SignJWT({ roles: ['admin'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('alice')
    .setIssuer('https://issuer.test')
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(secret));
}

describe('records authentication fast path', () => {
  test('a remembered JWT is answered at once and still expires on time', async () => {
    let now = new Date('2030-01-01T00:00:00Z');
    const clock = { now: () => now };
    // No API key is sent, so the pool is never used.
    const authenticator = new Authenticator({} as Pool, new JwtVerifier(config), clock);
    const exp = now.getTime() / 1000 + 60;
    const headers = { authorization: `Bearer ${await token(exp)}` };
    assert.equal(authenticator.authenticateAtOnce(headers), undefined, 'not verified yet');
    assert.equal((await authenticator.authenticate(headers, '127.0.0.1'))?.actor_id, 'alice');
    assert.equal(authenticator.authenticateAtOnce(headers)?.actor_id, 'alice', 'remembered');
    now = new Date((exp - 1) * 1000);
    assert.equal(authenticator.authenticateAtOnce(headers)?.actor_id, 'alice', 'one second before exp');
    now = new Date(exp * 1000);
    assert.equal(authenticator.authenticateAtOnce(headers), null, 'refused from exp on');
    assert.equal(await authenticator.authenticate(headers, '127.0.0.1'), null);
  });

  test('API keys are never answered from memory; missing credentials are refused at once', () => {
    const authenticator = new Authenticator({} as Pool, new JwtVerifier(config), {
      now: () => new Date(),
    });
    assert.equal(authenticator.authenticateAtOnce({ 'x-api-key': 'wrk_x' }), undefined);
    assert.equal(authenticator.authenticateAtOnce({ authorization: 'Bearer wrk_x' }), undefined);
    assert.equal(authenticator.authenticateAtOnce({}), null);
    assert.equal(authenticator.authenticateAtOnce({ authorization: 'Basic YTpi' }), null);
  });

  test('in-process rate-limit windows: start at the first request, refuse past the budget, then reset', () => {
    let now = 1_000_000;
    const counter = new WindowCounter(2, 60, () => now);
    assert.deepEqual(counter.consume('a'), { remaining: 1, msBeforeNext: 60_000 });
    now += 10_000;
    assert.deepEqual(counter.consume('a'), { remaining: 0, msBeforeNext: 50_000 });
    assert.equal(counter.consume('a').remaining, -1, 'the third request in the window is refused');
    assert.equal(counter.consume('b').remaining, 1, 'keys are counted apart');
    now += 50_000;
    assert.deepEqual(counter.consume('a'), { remaining: 1, msBeforeNext: 60_000 }, 'a new window');
  });

  test('a cursor is bound to its query and its values', () => {
    const codec = new CursorCodec(Buffer.alloc(32, 7));
    const cursor = codec.encode('["q1"]', '[12.5, "x"]');
    assert.deepEqual(codec.decode(cursor, '["q1"]', 2), [12.5, 'x']);
    assert.throws(() => codec.decode(cursor, '["q2"]', 2), /another query/);
    assert.throws(() => codec.decode(cursor, '["q1"]', 3), /another query/);
    const [payload, signature] = cursor.split('.');
    const forged = `${Buffer.from('[13, "x"]').toString('base64url')}.${signature}`;
    assert.notEqual(forged.split('.')[0], payload);
    assert.throws(() => codec.decode(forged, '["q1"]', 2), /another query/);
  });
});
