import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMigratedDatabase, type TestDatabase } from '../../../helpers/database.js';
import { startTestWorkflow, testSigningKey, type TestWorkflow } from '../../../helpers/workflow.js';

describe('bearer authentication, /me and change-password', () => {
  let database: TestDatabase;
  let workflow: TestWorkflow;
  let now = new Date();
  before(async () => {
    database = await createMigratedDatabase('workflow');
    workflow = await startTestWorkflow({ database, clock: { now: () => now } });
  });
  after(async () => {
    await workflow.close();
    await database.drop();
  });

  test('/me describes the caller and each org with its roles', async () => {
    const userId = await workflow.createUser('member@example.com', 'member password');
    const { rows } = await database.pool.query<{ id: string }>(
      `INSERT INTO orgs (name, slug) VALUES ('Acme', 'acme'), ('Beta', 'beta') RETURNING id`,
    );
    const [acme, beta] = rows.map((row) => row.id);
    await database.pool.query(
      `INSERT INTO memberships (org_id, user_id, roles) VALUES ($1, $3, '{Developer,Reader}'), ($2, $3, '{Operator}')`,
      [acme, beta, userId],
    );
    const token = await workflow.login('member@example.com', 'member password');
    const response = await workflow.request({ method: 'GET', url: '/api/v1/me', token });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      id: userId,
      email: 'member@example.com',
      auth_provider: 'internal',
      global_roles: [],
      orgs: [
        { id: acme, name: 'Acme', slug: 'acme', roles: ['Developer', 'Reader'] },
        { id: beta, name: 'Beta', slug: 'beta', roles: ['Operator'] },
      ],
    });
  });

  test('missing, malformed and non-bearer Authorization headers are 401 U401', async () => {
    const token = await workflow.login('member@example.com', 'member password');
    for (const authorization of [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      `Basic ${token}`,
      `Bearer ${token}x`,
      'Bearer a.b.c',
      `Bearer ${'x'.repeat(10000)}`,
    ]) {
      const response = await workflow.service.app.inject({
        method: 'GET',
        url: '/api/v1/me',
        headers: authorization === undefined ? {} : { authorization },
      });
      assert.equal(response.statusCode, 401, String(authorization).slice(0, 40));
      assert.deepEqual(response.json(), { code: 'U401', message: 'Unauthenticated' });
    }
  });

  test('a JWT stops working when it expires', async () => {
    const token = await workflow.login('member@example.com', 'member password');
    assert.equal((await workflow.request({ method: 'GET', url: '/api/v1/me', token })).statusCode, 200);
    const issuedAt = now;
    now = new Date(issuedAt.getTime() + 3601_000);
    try {
      assert.equal((await workflow.request({ method: 'GET', url: '/api/v1/me', token })).statusCode, 401);
    } finally {
      now = new Date();
    }
  });

  test('rotating the signing key invalidates JWTs but not API keys', async () => {
    const token = await workflow.login('member@example.com', 'member password');
    const created = await workflow.request({
      method: 'POST',
      url: '/api/v1/api-keys',
      token,
      body: { name: 'survivor' },
    });
    const apiKey = (created.json() as { plaintext_key: string }).plaintext_key;
    const rotated = await startTestWorkflow({
      database,
      env: { WORKFLOW_JWT_SIGNING_KEY: `${testSigningKey}-rotated` },
    });
    try {
      assert.equal((await rotated.request({ method: 'GET', url: '/api/v1/me', token })).statusCode, 401);
      assert.equal(
        (await rotated.request({ method: 'GET', url: '/api/v1/me', token: apiKey })).statusCode,
        200,
      );
    } finally {
      await rotated.close();
    }
  });

  test('change-password checks the current password, keeps existing JWTs valid, and the new password logs in', async () => {
    await workflow.createUser('changer@example.com', 'old password 1');
    const token = await workflow.login('changer@example.com', 'old password 1');
    const wrong = await workflow.request({
      method: 'POST',
      url: '/api/v1/auth/change-password',
      token,
      body: { current_password: 'not it', new_password: 'new password 2' },
    });
    assert.equal(wrong.statusCode, 403);
    assert.equal((wrong.json() as { code: string }).code, 'U403');
    const tooShort = await workflow.request({
      method: 'POST',
      url: '/api/v1/auth/change-password',
      token,
      body: { current_password: 'old password 1', new_password: 'short' },
    });
    assert.equal(tooShort.statusCode, 400);
    const changed = await workflow.request({
      method: 'POST',
      url: '/api/v1/auth/change-password',
      token,
      body: { current_password: 'old password 1', new_password: 'new password 2' },
    });
    assert.equal(changed.statusCode, 204);
    assert.equal(changed.body, '');
    assert.equal((await workflow.request({ method: 'GET', url: '/api/v1/me', token })).statusCode, 200);
    await workflow.login('changer@example.com', 'new password 2');
    const old = await workflow.request({
      method: 'POST',
      url: '/api/v1/auth/login',
      body: { email: 'changer@example.com', password: 'old password 1' },
    });
    assert.equal(old.statusCode, 401);
    assert.ok(!workflow.logs.text().includes('new password 2'));
  });

  test('external users cannot change a password (403)', async () => {
    const userId = await workflow.createUser('sso@example.com', null, { external: true });
    // External users cannot log in here; a token signed with the service key stands in for their session.
    const { JwtCodec } = await import('../../../../src/workflow/identity/auth/jwt.js');
    const { token } = await new JwtCodec(testSigningKey, 3600).issue(userId, new Date());
    const response = await workflow.request({
      method: 'POST',
      url: '/api/v1/auth/change-password',
      token,
      body: { current_password: 'whatever', new_password: 'whatever else' },
    });
    assert.equal(response.statusCode, 403);
    assert.equal((response.json() as { code: string }).code, 'U403');
  });
});
