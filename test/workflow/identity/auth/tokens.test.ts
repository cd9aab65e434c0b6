import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeJwt, decodeProtectedHeader, SignJWT, UnsecuredJWT } from 'jose';
import {
  generateApiKey,
  looksLikeApiKey,
  parseApiKey,
} from '../../../../src/workflow/identity/auth/api-key-format.js';
import { JwtCodec, nilUuid } from '../../../../src/workflow/identity/auth/jwt.js';

const key = 'unit-test-signing-key-0123456789abcdef0123';
const userId = '3f2b8c1e-9d4a-4e5f-8a7b-1c2d3e4f5a6b';
const now = new Date('2026-11-21T10:00:00Z');

describe('API key format', () => {
  test('is ck_ + 8 url-safe prefix characters + a 32-character body from 24 random bytes', () => {
    const { plaintext, prefix } = generateApiKey();
    assert.match(plaintext, /^ck_[A-Za-z0-9_-]{40}$/);
    assert.match(prefix, /^[A-Za-z0-9_-]{8}$/);
    assert.equal(plaintext.slice(3, 11), prefix);
    assert.equal(Buffer.from(plaintext.slice(11), 'base64url').length, 24);
  });

  test('keys are unique', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey().plaintext));
    assert.equal(keys.size, 1000);
  });

  test('parsing finds the prefix of a well-formed key and rejects anything else', () => {
    const { plaintext, prefix } = generateApiKey();
    assert.deepEqual(parseApiKey(plaintext), { prefix });
    for (const bad of [
      'ck_',
      'ck_short',
      `${plaintext}x`,
      plaintext.slice(0, -1),
      `ck_${'!'.repeat(40)}`,
      plaintext.replace('ck_', 'CK_'),
    ]) {
      assert.equal(parseApiKey(bad), null, bad);
    }
  });

  test('only tokens starting with ck_ take the API-key path', () => {
    assert.equal(looksLikeApiKey('ck_anything'), true);
    assert.equal(looksLikeApiKey('eyJhbGciOiJIUzI1NiJ9.e30.x'), false);
    assert.equal(looksLikeApiKey('CK_upper'), false);
  });
});

describe('JWT', () => {
  const codec = new JwtCodec(key, 3600);

  test('carries exactly the claims of the spec, signed with HS256', async () => {
    const { token, expiresIn } = await codec.issue(userId, now);
    assert.equal(expiresIn, 3600);
    assert.deepEqual(decodeProtectedHeader(token), { alg: 'HS256', typ: 'JWT' });
    const iat = Math.floor(now.getTime() / 1000);
    assert.deepEqual(decodeJwt(token), { sub: userId, org: nilUuid, iat, exp: iat + 3600, iss: 'workflow' });
    assert.equal(await codec.verify(token, now), userId);
  });

  test('is refused after expiry, under another key, or with another issuer', async () => {
    const { token } = await codec.issue(userId, now);
    assert.equal(await codec.verify(token, new Date(now.getTime() + 3601_000)), null);
    assert.equal(await new JwtCodec(`${key}-rotated`, 3600).verify(token, now), null);
    const foreign = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setIssuer('someone-else')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(key));
    assert.equal(await codec.verify(foreign, new Date()), null);
  });

  test('refuses unsigned tokens, garbage and a subject that is not a UUID', async () => {
    const unsecured = new UnsecuredJWT({})
      .setSubject(userId)
      .setIssuer('workflow')
      .setIssuedAt()
      .setExpirationTime('1h')
      .encode();
    assert.equal(await codec.verify(unsecured, new Date()), null);
    assert.equal(await codec.verify('not.a.jwt', now), null);
    const { token } = await new JwtCodec(key, 3600).issue('not-a-uuid', now);
    assert.equal(await codec.verify(token, now), null);
  });
});

describe('JWT verification cache', () => {
  test('a remembered token still expires on time', async () => {
    const codec = new JwtCodec(key, 60);
    const { token } = await codec.issue(userId, now);
    assert.equal(await codec.verify(token, now), userId);
    assert.equal(await codec.verify(token, new Date(now.getTime() + 59_000)), userId);
    assert.equal(await codec.verify(token, new Date(now.getTime() + 60_000)), null);
  });
});
