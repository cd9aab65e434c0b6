import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createPool } from '../../src/platform/database/pool.js';
import { createApiKey } from '../../src/records/auth/api-keys.js';
import { ordersPath, startRecordsApp, type Body, type RecordsTestApp } from './support/records-app.js';

const admin = { actor: 'root', roles: ['platform-admin'] };
const cli = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

interface Issued {
  id: string;
  key: string;
  expires_at: string | null;
  replaces?: string;
  replaced_until?: string | null;
}
interface Listed {
  id: string;
  actor: string;
  roles: string[];
  allowed_cidrs: string[];
  label: string | null;
  status: string;
  expires_at: string | null;
  replaced_by: string | null;
  revoked_by: string | null;
}

describe('records API key operations', () => {
  let app: RecordsTestApp;
  let second: RecordsTestApp;
  before(async () => {
    app = await startRecordsApp();
    // Its own pool and caches on the same database: a second instance as far as keys are concerned.
    second = await startRecordsApp(
      {},
      {
        database: app.database,
        pool: (database) =>
          Promise.resolve(createPool(database.url, { max: 2, applicationName: 'weft-test-second' })),
      },
    );
  });
  after(async () => {
    await second?.close();
    await app?.close();
  });
  const read = (instance: RecordsTestApp, key: string) =>
    instance.service.app.inject({ method: 'GET', url: `/api/${ordersPath}`, headers: { 'x-api-key': key } });
  const create = async (body: Record<string, unknown>): Promise<Issued> => {
    const response = await app.call('POST', '/api/platform/api-keys', { ...admin, body });
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.headers['cache-control'], 'no-store');
    return response.json<{ data: Issued }>().data;
  };
  const list = async (query = ''): Promise<Listed[]> => {
    const response = await app.call('GET', `/api/platform/api-keys${query}`, admin);
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ data: Listed[] }>().data;
  };

  test('only platform-admin may list, create, revoke or rotate keys', async () => {
    const key = await createApiKey(app.database.pool, { actor: 'ci', roles: ['viewer'] });
    const other = { actor: 'mallory', roles: ['admin'] };
    for (const [method, url] of [
      ['GET', '/api/platform/api-keys'],
      ['POST', '/api/platform/api-keys'],
      ['POST', `/api/platform/api-keys/${key.id}/revoke`],
      ['POST', `/api/platform/api-keys/${key.id}/rotate`],
    ] as const) {
      const response = await app.call(method, url, {
        ...other,
        ...(url.endsWith('api-keys') && method === 'POST' ? { body: { actor: 'x', roles: [] } } : {}),
      });
      assert.equal(response.statusCode, 403, `${method} ${url}`);
      assert.equal(response.json<Body>().code, 'RBAC_DENIED');
    }
    assert.equal((await read(app, key.plaintext)).statusCode, 200, 'nothing was revoked');
    const anonymous = await app.service.app.inject({ method: 'GET', url: '/api/platform/api-keys' });
    assert.equal(anonymous.statusCode, 401);
  });

  test('a key revoked through the API is refused on the next request, on this and on a second instance', async () => {
    const issued = await create({ actor: 'ci-bot', roles: ['viewer'], label: 'nightly export' });
    assert.match(issued.key, /^wrk_/);
    assert.equal((await read(app, issued.key)).statusCode, 200);
    assert.equal((await read(second, issued.key)).statusCode, 200);
    const listed = (await list('?actor=ci-bot')).find((key) => key.id === issued.id);
    assert.equal(listed?.status, 'active');
    assert.equal(listed?.label, 'nightly export');
    const listing = JSON.stringify(await list());
    assert.ok(!listing.includes(issued.key) && !listing.includes('key_hash'), 'no secret in a list');

    const revoke = await app.call('POST', `/api/platform/api-keys/${issued.id}/revoke`, admin);
    assert.equal(revoke.statusCode, 204);
    const onThis = await read(app, issued.key);
    assert.equal(onThis.statusCode, 401);
    assert.equal(onThis.json<Body>().code, 'AUTH_INVALID_TOKEN');
    assert.equal((await read(second, issued.key)).statusCode, 401, 'the other instance refuses it at once');
    assert.equal(
      (await app.call('POST', `/api/platform/api-keys/${issued.id}/revoke`, admin)).statusCode,
      204,
      'revoking again changes nothing',
    );
    assert.equal(
      (await list()).find((key) => key.id === issued.id),
      undefined,
      'the default list shows working keys',
    );
    const all = (await list('?all=true')).find((key) => key.id === issued.id);
    assert.equal(all?.status, 'revoked');
    assert.equal(all?.revoked_by, 'root');
  });

  test('rotate: a new key with the same grants; the old one is refused at once, or after its grace period', async () => {
    const old = await create({ actor: 'etl', roles: ['viewer'], ttl: '30d', allow: ['127.0.0.0/8'] });
    const rotated = await app.call('POST', `/api/platform/api-keys/${old.id}/rotate`, admin);
    assert.equal(rotated.statusCode, 201, rotated.body);
    const fresh = rotated.json<{ data: Issued }>().data;
    assert.equal(fresh.replaces, old.id);
    assert.equal(fresh.replaced_until, null);
    assert.notEqual(fresh.key, old.key);
    assert.ok(fresh.expires_at, 'the new key has the old lifetime');
    const days = (Date.parse(fresh.expires_at) - Date.now()) / 86_400_000;
    assert.ok(days > 29.9 && days <= 30, `${days} days`);
    assert.equal((await read(app, fresh.key)).statusCode, 200);
    assert.equal((await read(second, old.key)).statusCode, 401);
    const copy = (await list('?actor=etl')).find((key) => key.id === fresh.id);
    assert.deepEqual(copy?.allowed_cidrs, ['127.0.0.0/8']);
    assert.deepEqual(copy?.roles, ['viewer']);
    assert.equal(
      (await app.call('POST', `/api/platform/api-keys/${old.id}/rotate`, admin)).statusCode,
      404,
      'a revoked key cannot be rotated',
    );

    const graced = await app.call('POST', `/api/platform/api-keys/${fresh.id}/rotate`, {
      ...admin,
      body: { grace: '10m' },
    });
    assert.equal(graced.statusCode, 201);
    const third = graced.json<{ data: Issued }>().data;
    assert.ok(third.replaced_until && Date.parse(third.replaced_until) > Date.now() + 9 * 60_000);
    assert.equal((await read(second, fresh.key)).statusCode, 200, 'the old key works during the grace');
    assert.equal((await read(second, third.key)).statusCode, 200);
    assert.equal((await list('?actor=etl')).find((key) => key.id === fresh.id)?.status, 'rotated');
    assert.equal(
      (await app.call('POST', `/api/platform/api-keys/${fresh.id}/rotate`, admin)).statusCode,
      404,
      'a key is rotated once',
    );
    assert.equal(
      (await app.call('POST', `/api/platform/api-keys/${fresh.id}/revoke`, admin)).statusCode,
      204,
    );
    assert.equal((await read(second, fresh.key)).statusCode, 401, 'revoking ends the grace');
    assert.equal((await read(app, third.key)).statusCode, 200);
  });

  test('bad input is a 4xx with the error body', async () => {
    const key = await createApiKey(app.database.pool, { actor: 'ci', roles: ['viewer'] });
    const cases: [string, string, unknown, number][] = [
      ['POST', `/api/platform/api-keys/${key.id}/rotate`, { grace: 'soon' }, 400],
      ['POST', '/api/platform/api-keys/not-a-uuid/revoke', undefined, 400],
      ['POST', '/api/platform/api-keys/00000000-0000-4000-8000-000000000000/revoke', undefined, 404],
      ['POST', '/api/platform/api-keys/00000000-0000-4000-8000-000000000000/rotate', {}, 404],
      ['POST', '/api/platform/api-keys', { actor: 'a', roles: [], allow: ['not a range'] }, 400],
      ['POST', '/api/platform/api-keys', { actor: 'a', roles: [], ttl: 'forever' }, 400],
      ['POST', '/api/platform/api-keys', { roles: [] }, 400],
    ];
    for (const [method, url, body, status] of cases) {
      const response = await app.call(method as 'POST', url, { ...admin, ...(body ? { body } : {}) });
      assert.equal(response.statusCode, status, `${url} ${JSON.stringify(body)}: ${response.body}`);
      assert.ok(response.json<Body>().code, 'error body');
    }
  });

  test('the CLI lists, revokes and rotates keys; the next request sees the change', async () => {
    const run = async (...args: string[]) =>
      (
        await promisify(execFile)(tsx, [cli, 'records', 'api-key', ...args], {
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '',
            RECORDS_DATABASE_URL: app.database.url,
            WEFT_LOG_LEVEL: 'warn',
          },
        })
      ).stdout;
    const created = await run('create', '--actor', 'cli-bot', '--roles', 'viewer', '--label', 'from cli');
    const plaintext = created.split('\n')[0] ?? '';
    const id = /id ([0-9a-f-]{36})/.exec(created)?.[1] ?? '';
    assert.match(plaintext, /^wrk_/);
    assert.equal((await read(app, plaintext)).statusCode, 200);

    const listed = await run('list', '--actor', 'cli-bot');
    assert.match(listed, new RegExp(`${id}\\s+active\\s+cli-bot`));
    assert.ok(!listed.includes(plaintext), 'list never prints a secret');

    const rotated = await run('rotate', id, '--grace', '5m');
    const next = rotated.split('\n')[0] ?? '';
    const nextId = /id ([0-9a-f-]{36})/.exec(rotated)?.[1] ?? '';
    assert.match(next, /^wrk_/);
    assert.match(rotated, /the old key .* works until/);
    assert.equal((await read(second, next)).statusCode, 200);
    assert.equal((await read(second, plaintext)).statusCode, 200, 'grace period');

    assert.match(await run('revoke', id), /revoked/);
    assert.equal((await read(second, plaintext)).statusCode, 401);
    const all = await run('list', '--actor', 'cli-bot', '--all');
    assert.match(all, new RegExp(`${id}\\s+revoked`));
    assert.match(all, new RegExp(`${nextId}\\s+active`));
  });
});
