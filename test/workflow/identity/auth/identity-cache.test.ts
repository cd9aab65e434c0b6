import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { IdentityCache } from '../../../../src/workflow/identity/auth/identity-cache.js';
import { createMigratedDatabase, type TestDatabase } from '../../../helpers/database.js';
import { startTestWorkflow, type TestWorkflow } from '../../../helpers/workflow.js';

/** Polls `check` every 10 ms until it holds or `ms` pass; returns whether it held. */
async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return check();
}

describe('IdentityCache', () => {
  const clock = { now: () => new Date(now) };
  let now = 0;

  test('serves nothing until trusted, then serves a stored entry until its TTL', async () => {
    const cache = new IdentityCache({ ttlMs: 1000, clock });
    let reads = 0;
    const load = () => Promise.resolve({ n: ++reads });
    assert.deepEqual(await cache.read('a', load), { n: 1 });
    assert.deepEqual(await cache.read('a', load), { n: 2 }, 'not trusted: every read loads');
    cache.trust();
    assert.deepEqual(await cache.read('a', load), { n: 3 });
    assert.deepEqual(await cache.read('a', load), { n: 3 }, 'trusted: served from memory');
    now += 1000;
    assert.deepEqual(await cache.read('a', load), { n: 4 }, 'expired entries are read again');
  });

  test('invalidate and distrust drop every entry; null is never stored', async () => {
    const cache = new IdentityCache({ ttlMs: 60_000, clock });
    cache.trust();
    let reads = 0;
    const load = () => Promise.resolve({ n: ++reads });
    await cache.read('a', load);
    cache.invalidate();
    assert.deepEqual(await cache.read('a', load), { n: 2 });
    cache.distrust();
    assert.deepEqual(await cache.read('a', load), { n: 3 });
    assert.deepEqual(await cache.read('a', load), { n: 4 });
    cache.trust();
    let missing = 0;
    await cache.read('gone', () => Promise.resolve((missing++, null)));
    await cache.read('gone', () => Promise.resolve((missing++, null)));
    assert.equal(missing, 2);
  });

  test('a read that an invalidation overtook does not store what it read', async () => {
    const cache = new IdentityCache({ ttlMs: 60_000, clock });
    cache.trust();
    let release: () => void = () => undefined;
    const slow = cache.read('a', () => new Promise<string>((resolve) => (release = () => resolve('old'))));
    cache.invalidate();
    release();
    assert.equal(await slow, 'old');
    assert.equal(await cache.read('a', () => Promise.resolve('new')), 'new');
  });

  test('a TTL of 0 turns the cache off; past maxEntries the oldest entry goes', async () => {
    const off = new IdentityCache({ ttlMs: 0, clock });
    off.trust();
    let reads = 0;
    await off.read('a', () => Promise.resolve(++reads));
    await off.read('a', () => Promise.resolve(++reads));
    assert.equal(reads, 2);
    const small = new IdentityCache({ ttlMs: 60_000, maxEntries: 2, clock });
    small.trust();
    for (const key of ['a', 'b', 'c']) await small.read(key, () => Promise.resolve(key));
    assert.equal(await small.read('b', () => Promise.resolve('reloaded')), 'b');
    assert.equal(await small.read('a', () => Promise.resolve('reloaded')), 'reloaded');
  });
});

describe('authentication through the identity cache', () => {
  let database: TestDatabase;
  let workflow: TestWorkflow;
  let orgId: string;
  let userId: string;
  let token: string;
  const orgsAsMember = async () =>
    (await workflow.request({ method: 'GET', url: `/api/v1/orgs/${orgId}/process-groups`, token }))
      .statusCode;

  before(async () => {
    database = await createMigratedDatabase('workflow');
    // An hour of TTL: whatever a test sees change within seconds came through invalidation.
    workflow = await startTestWorkflow({ database, env: { WORKFLOW_IDENTITY_CACHE_MS: '3600000' } });
    userId = await workflow.createUser('member@example.com', 'member password');
    const { rows } = await database.pool.query<{ id: string }>(
      `INSERT INTO orgs (name, slug) VALUES ('Acme', 'acme') RETURNING id`,
    );
    orgId = rows[0]!.id;
    token = await workflow.login('member@example.com', 'member password');
  });
  after(async () => {
    await workflow.close();
    await database.drop();
  });

  const grant = () =>
    database.pool.query(
      `INSERT INTO memberships (org_id, user_id, roles) VALUES ($1, $2, '{Reader}')
       ON CONFLICT (org_id, user_id) DO UPDATE SET roles = '{Reader}'`,
      [orgId, userId],
    );

  test('a membership removed in SQL elsewhere is refused within moments, long before the TTL', async () => {
    await grant();
    assert.ok(await eventually(async () => (await orgsAsMember()) === 200, 2000));
    await database.pool.query('DELETE FROM memberships WHERE user_id = $1', [userId]);
    assert.ok(
      await eventually(async () => (await orgsAsMember()) === 403, 2000),
      'the NOTIFY of the DELETE invalidated the cached identity',
    );
  });

  test('the cache serves: a change that notifies nobody is not seen while the channel listens', async () => {
    await grant();
    assert.ok(await eventually(async () => (await orgsAsMember()) === 200, 2000));
    await database.pool.query('ALTER TABLE memberships DISABLE TRIGGER memberships_identity_changed');
    try {
      await database.pool.query('DELETE FROM memberships WHERE user_id = $1', [userId]);
      assert.equal(await orgsAsMember(), 200, 'served from memory');
    } finally {
      await database.pool.query('ALTER TABLE memberships ENABLE TRIGGER memberships_identity_changed');
    }
    await database.pool.query(`UPDATE users SET updated_at = now() WHERE id = $1`, [userId]);
    assert.ok(await eventually(async () => (await orgsAsMember()) === 403, 2000));
  });

  test('removing a member through the API refuses their very next request', async () => {
    await grant();
    const adminId = await workflow.createUser('admin@example.com', 'admin password', { platformAdmin: true });
    assert.ok(adminId);
    const admin = await workflow.login('admin@example.com', 'admin password');
    assert.ok(await eventually(async () => (await orgsAsMember()) === 200, 2000));
    for (let round = 0; round < 20; round++) {
      const removed = await workflow.request({
        method: 'DELETE',
        url: `/api/v1/orgs/${orgId}/members/${userId}`,
        token: admin,
      });
      assert.equal(removed.statusCode, 204);
      assert.equal(await orgsAsMember(), 403, `round ${round}: refused at once`);
      await grant();
      assert.ok(await eventually(async () => (await orgsAsMember()) === 200, 2000));
    }
  });

  test('while the LISTEN connection is lost nothing is served from memory', async () => {
    await grant();
    assert.ok(await eventually(async () => (await orgsAsMember()) === 200, 2000));
    await database.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'weft-identity-listener'`,
    );
    assert.ok(
      await eventually(
        () =>
          Promise.resolve(
            workflow.logs
              .messages(/LISTEN connection lost/)
              .some((entry) => entry.connection === 'weft-identity-listener'),
          ),
        5000,
      ),
      'the loss is noticed',
    );
    await database.pool.query('ALTER TABLE memberships DISABLE TRIGGER memberships_identity_changed');
    try {
      await database.pool.query('DELETE FROM memberships WHERE user_id = $1', [userId]);
      // Reconnection waits a second after the loss; until then (and right after) every read loads.
      assert.equal(await orgsAsMember(), 403);
    } finally {
      await database.pool.query('ALTER TABLE memberships ENABLE TRIGGER memberships_identity_changed');
    }
    await grant();
    assert.ok(
      await eventually(async () => (await orgsAsMember()) === 200, 5000),
      'served again after the reconnection',
    );
  });
});
