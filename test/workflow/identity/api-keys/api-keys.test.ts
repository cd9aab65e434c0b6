import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LastUsedRecorder } from '../../../../src/workflow/identity/api-keys/last-used-recorder.js';
import { startTestWorkflow, type TestWorkflow } from '../../../helpers/workflow.js';

describe('API keys', () => {
  let workflow: TestWorkflow;
  let jwt: string;
  before(async () => {
    workflow = await startTestWorkflow();
    await workflow.createUser('dev@example.com', 'dev password 1');
    jwt = await workflow.login('dev@example.com', 'dev password 1');
  });
  after(() => workflow.close());

  const createKey = async (name: string, token = jwt) => {
    const response = await workflow.request({
      method: 'POST',
      url: '/api/v1/api-keys',
      token,
      body: { name },
    });
    assert.equal(response.statusCode, 201);
    return response.json() as {
      id: string;
      name: string;
      prefix: string;
      plaintext_key: string;
      created_at: string;
    };
  };

  test('creation returns the plaintext once, in the ck_ format, and stores only a hash', async () => {
    const key = await createKey('ci');
    assert.deepEqual(Object.keys(key).sort(), ['created_at', 'id', 'name', 'plaintext_key', 'prefix']);
    assert.match(key.plaintext_key, /^ck_[A-Za-z0-9_-]{40}$/);
    assert.equal(key.plaintext_key.slice(3, 11), key.prefix);
    const { rows } = await workflow.database.pool.query<{ key_hash: Buffer }>(
      'SELECT key_hash FROM api_keys WHERE id = $1',
      [key.id],
    );
    assert.equal(rows[0]?.key_hash.length, 32);
    assert.ok(!rows[0]?.key_hash.toString('latin1').includes(key.plaintext_key));
  });

  test('a key authenticates as its owner, and the list shows no secrets', async () => {
    const key = await createKey('laptop');
    const me = await workflow.request({ method: 'GET', url: '/api/v1/me', token: key.plaintext_key });
    assert.equal(me.statusCode, 200);
    assert.equal((me.json() as { email: string }).email, 'dev@example.com');
    const list = await workflow.request({ method: 'GET', url: '/api/v1/api-keys', token: key.plaintext_key });
    assert.equal(list.statusCode, 200);
    const items = list.json() as Record<string, unknown>[];
    assert.ok(items.some((item) => item.id === key.id));
    for (const item of items) {
      assert.deepEqual(Object.keys(item).sort(), [
        'created_at',
        'id',
        'last_used_at',
        'name',
        'prefix',
        'revoked_at',
      ]);
    }
    assert.ok(!list.body.includes(key.plaintext_key));
  });

  test('revocation takes effect on the very next request', async () => {
    const key = await createKey('to revoke');
    assert.equal(
      (await workflow.request({ method: 'GET', url: '/api/v1/me', token: key.plaintext_key })).statusCode,
      200,
    );
    const revoke = await workflow.request({
      method: 'DELETE',
      url: `/api/v1/api-keys/${key.id}`,
      token: jwt,
    });
    assert.equal(revoke.statusCode, 204);
    const after = await workflow.request({ method: 'GET', url: '/api/v1/me', token: key.plaintext_key });
    assert.equal(after.statusCode, 401);
    assert.deepEqual(after.json(), { code: 'U401', message: 'Unauthenticated' });
    const listed = (
      await workflow.request({ method: 'GET', url: '/api/v1/api-keys', token: jwt })
    ).json() as {
      id: string;
      revoked_at: string | null;
    }[];
    assert.notEqual(listed.find((item) => item.id === key.id)?.revoked_at, null);
  });

  test("a user cannot revoke another user's key, and unknown ids are 404", async () => {
    const key = await createKey('mine');
    await workflow.createUser('other@example.com', 'other password');
    const otherJwt = await workflow.login('other@example.com', 'other password');
    const response = await workflow.request({
      method: 'DELETE',
      url: `/api/v1/api-keys/${key.id}`,
      token: otherJwt,
    });
    assert.equal(response.statusCode, 404);
    assert.equal((response.json() as { code: string }).code, 'U404');
    const stillWorks = await workflow.request({ method: 'GET', url: '/api/v1/me', token: key.plaintext_key });
    assert.equal(stillWorks.statusCode, 200);
    const notUuid = await workflow.request({
      method: 'DELETE',
      url: '/api/v1/api-keys/not-a-uuid',
      token: jwt,
    });
    assert.equal(notUuid.statusCode, 400);
  });

  test('a tampered key or an unknown prefix is 401', async () => {
    const key = await createKey('tamper');
    const flipped = key.plaintext_key.slice(0, -1) + (key.plaintext_key.endsWith('A') ? 'B' : 'A');
    for (const token of [flipped, 'ck_AAAAAAAA' + 'A'.repeat(32), 'ck_short']) {
      const response = await workflow.request({ method: 'GET', url: '/api/v1/me', token });
      assert.equal(response.statusCode, 401, token);
    }
  });

  test('last_used_at is written in the background, not by the request', async () => {
    const key = await createKey('burst');
    const readLastUsed = async () =>
      (
        await workflow.database.pool.query<{ last_used_at: Date | null }>(
          'SELECT last_used_at FROM api_keys WHERE id = $1',
          [key.id],
        )
      ).rows[0]?.last_used_at ?? null;
    for (let i = 0; i < 20; i++) {
      assert.equal(
        (await workflow.request({ method: 'GET', url: '/api/v1/me', token: key.plaintext_key })).statusCode,
        200,
      );
    }
    assert.equal(await readLastUsed(), null, 'requests do not write last_used_at themselves');
    await workflow.service.flushBackgroundWork();
    const lastUsed = await readLastUsed();
    assert.ok(lastUsed instanceof Date && Date.now() - lastUsed.getTime() < 60_000);
  });

  test('a burst of uses of many keys costs one statement per flush', async () => {
    let statements = 0;
    const pool = workflow.database.pool;
    const counting = Object.create(pool) as typeof pool;
    counting.query = ((...args: Parameters<typeof pool.query>) => {
      statements++;
      return pool.query(...args);
    }) as typeof pool.query;
    let now = new Date('2026-11-21T10:00:00Z');
    const recorder = new LastUsedRecorder(counting, { now: () => now }, workflow.logs.logger);
    const keys = [await createKey('a'), await createKey('b'), await createKey('c')];
    for (let i = 0; i < 100; i++) {
      now = new Date(now.getTime() + 1000);
      for (const key of keys) recorder.touch(key.id);
    }
    await recorder.flush();
    assert.equal(statements, 1);
    const { rows } = await pool.query<{ last_used_at: Date }>(
      'SELECT last_used_at FROM api_keys WHERE id = ANY($1)',
      [keys.map((key) => key.id)],
    );
    assert.deepEqual(
      rows.map((row) => row.last_used_at.toISOString()),
      keys.map(() => now.toISOString()),
    );
    await recorder.flush();
    assert.equal(statements, 1, 'nothing pending means no statement');
  });

  test('the plaintext key never reaches the logs', async () => {
    const key = await createKey('secret-check');
    await workflow.request({ method: 'GET', url: '/api/v1/me', token: key.plaintext_key });
    assert.ok(!workflow.logs.text().includes(key.plaintext_key));
    assert.ok(!workflow.logs.text().includes(key.plaintext_key.slice(11)));
  });
});
