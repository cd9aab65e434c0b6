import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEngineFixture, type EngineFixture } from '../engine/api/engine-fixture.js';

const secretValue = 'sk_live_0123456789abcdefSECRET';

describe('secrets API', () => {
  let f: EngineFixture;
  let orgAdmin: string;
  before(async () => {
    f = await createEngineFixture();
    const userId = await f.workflow.createUser('orgadmin@example.com', 'orgadmin password');
    await f.workflow.request({
      method: 'PUT',
      url: `/api/v1/orgs/${f.orgId}/members/${userId}`,
      token: f.tokens.admin,
      body: { roles: ['OrgAdmin'] },
    });
    orgAdmin = await f.workflow.login('orgadmin@example.com', 'orgadmin password');
  });
  after(() => f.close());

  const put = (body: unknown, token = orgAdmin, orgId = f.orgId) =>
    f.workflow.request({
      method: 'POST',
      url: '/api/v1/secrets',
      token,
      body,
      headers: { 'x-org-id': orgId },
    });

  test('an OrgAdmin creates (201) and replaces (200) a secret; the answer never carries the value', async () => {
    const created = await put({ name: 'shop-token', value: secretValue });
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json() as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['created_at', 'name', 'updated_at']);
    assert.equal(body.name, 'shop-token');
    const replaced = await put({ name: 'shop-token', value: `${secretValue}-2` });
    assert.equal(replaced.statusCode, 200);
    assert.equal((replaced.json() as { created_at: string }).created_at, body.created_at);
    assert.ok(!replaced.body.includes(secretValue));
  });

  test('the list has names and times only, sorted by name', async () => {
    await put({ name: 'a-key', value: 'another value 1234' });
    const listed = await f.workflow.request({
      method: 'GET',
      url: '/api/v1/secrets',
      token: orgAdmin,
      headers: { 'x-org-id': f.orgId.toUpperCase() },
    });
    assert.equal(listed.statusCode, 200);
    const items = listed.json() as Record<string, unknown>[];
    assert.deepEqual(
      items.map((item) => item.name),
      ['a-key', 'shop-token'],
    );
    for (const item of items)
      assert.deepEqual(Object.keys(item).sort(), ['created_at', 'name', 'updated_at']);
    assert.ok(!listed.body.includes(secretValue) && !listed.body.includes('another value'));
  });

  test('the stored row is ciphertext with a key id and a 12-byte nonce', async () => {
    const { rows } = await f.workflow.database.pool.query<{
      key_id: string;
      nonce: Buffer;
      ciphertext: Buffer;
    }>('SELECT key_id, nonce, ciphertext FROM secrets WHERE org_id = $1 AND name = $2', [
      f.orgId,
      'shop-token',
    ]);
    const row = rows[0];
    assert.ok(row);
    assert.match(row.key_id, /^[0-9a-f]{16}$/);
    assert.equal(row.nonce.length, 12);
    assert.ok(!row.ciphertext.toString('latin1').includes('sk_live'));
  });

  test('only an OrgAdmin (or PlatformAdmin) may manage secrets; no token is 401', async () => {
    for (const token of [f.tokens.developer, f.tokens.operator, f.tokens.reader, f.tokens.outsider]) {
      const response = await put({ name: 'x', value: 'y' }, token);
      assert.equal(response.statusCode, 403);
      assert.equal((response.json() as { code: string }).code, 'U403');
    }
    const anonymous = await f.workflow.request({
      method: 'GET',
      url: '/api/v1/secrets',
      headers: { 'x-org-id': f.orgId },
    });
    assert.deepEqual(anonymous.json(), { code: 'U401', message: 'Unauthenticated' });
    assert.equal((await put({ name: 'by-admin', value: 'v' }, f.tokens.admin)).statusCode, 201);
    const unknownOrg = await put(
      { name: 'x', value: 'y' },
      f.tokens.admin,
      '00000000-0000-4000-8000-000000000000',
    );
    assert.equal(unknownOrg.statusCode, 404);
  });

  test('malformed input is a 400 that does not echo the value', async () => {
    for (const body of [
      { name: 'bad name!', value: secretValue },
      { name: 'ok', value: '' },
      { name: 'ok', value: secretValue, extra: 1 },
      { value: secretValue },
      { name: 'x'.repeat(129), value: secretValue },
    ]) {
      const response = await put(body);
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.equal((response.json() as { code: string }).code, 'U400');
      assert.ok(!response.body.includes(secretValue));
    }
    const badHeader = await f.workflow.request({
      method: 'GET',
      url: '/api/v1/secrets',
      token: orgAdmin,
      headers: { 'x-org-id': 'not-a-uuid' },
    });
    assert.equal(badHeader.statusCode, 400);
  });

  test('DELETE removes a secret (204), then 404', async () => {
    const remove = () =>
      f.workflow.request({
        method: 'DELETE',
        url: '/api/v1/secrets/a-key',
        token: orgAdmin,
        headers: { 'x-org-id': f.orgId },
      });
    assert.equal((await remove()).statusCode, 204);
    const again = await remove();
    assert.equal(again.statusCode, 404);
    assert.equal((again.json() as { code: string }).code, 'U404');
  });

  test('no log line carries a secret value', () => {
    assert.ok(!f.workflow.logs.text().includes(secretValue));
  });
});
