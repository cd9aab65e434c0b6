import assert from 'node:assert/strict';
import { mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { applyResources } from '../../src/records/schemas/apply-resources.js';
import { parseResourceText } from '../../src/records/schemas/resource-documents.js';
import {
  signToken,
  startJwksServer,
  testKey,
  type JwksServer,
  type TestKey,
} from './support/auth-fixtures.js';
import { authResources } from './support/auth-resources.js';
import { startRecordsApp, suppliersPath, type RecordsTestApp } from './support/records-app.js';
import { startSecondInstance, type SecondInstance } from './support/second-instance.js';

const redisUrl = process.env.REDIS_URL;

const binding = (name: string, actor: string) => `
apiVersion: weft.dev/v1
kind: RoleBinding
metadata: { name: ${name} }
spec: { actor: ${actor}, roles: [buyer] }
`;
const extraKeys = `
apiVersion: weft.dev/v1
kind: AuthStrategy
metadata: { name: extra-keys }
spec:
  type: api_key
  apiKey: { headerName: X-Extra-Key }
`;

describe(
  'the resources folder is the declared state (two instances sharing Redis)',
  { skip: redisUrl ? false : 'REDIS_URL is unset: this test needs a real Redis' },
  () => {
    let app: RecordsTestApp;
    let jwks: JwksServer;
    let key: TestKey;
    let other: SecondInstance | undefined;

    before(async () => {
      key = await testKey('k1');
      jwks = await startJwksServer([key.jwk]);
      const env = { REDIS_URL: redisUrl ?? '', RECORDS_REVOCATION_POLL_MS: '200' };
      app = await startRecordsApp(env, {
        resources: {
          ...authResources(jwks.url),
          'gina-buyer.yaml': binding('gina-buyer', 'gina'),
          'extra-keys.yaml': extraKeys,
        },
      });
      // Applied with `weft records apply`, not from the folder: never pruned.
      await applyResources(
        app.database.pool,
        parseResourceText(binding('hank-buyer', 'hank'), 'hank.yaml').documents,
      );
      other = await startSecondInstance(app.database.url, {
        ...env,
        RECORDS_RESOURCES_DIR: app.resourcesDir,
        WEFT_DATA_DIR: app.resourcesDir,
      });
    });
    after(async () => {
      await other?.stop();
      await app?.close();
      await jwks?.close();
    });

    const resource = async (kind: string, name: string) =>
      (
        await app.database.pool.query<{ origin: string }>(
          `SELECT origin FROM records.resources WHERE kind = $1 AND name = $2`,
          [kind, name],
        )
      ).rows[0];
    const me = (base: string) => (token: string) =>
      fetch(`${base}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });

    test('an empty folder, or one with a file that does not parse, prunes nothing', async () => {
      assert.equal((await resource('RoleBinding', 'gina-buyer'))?.origin, 'folder');
      assert.equal((await resource('RoleBinding', 'hank-buyer'))?.origin, 'apply');
      const aside = await mkdtemp(path.join(os.tmpdir(), 'weft-aside-'));
      const files = await readdir(app.resourcesDir);
      for (const file of files) await rename(path.join(app.resourcesDir, file), path.join(aside, file));
      await app.service.sync.syncFolder();
      await new Promise((resolve) => setTimeout(resolve, 1000)); // the other instance's watcher too
      assert.ok(await resource('RoleBinding', 'gina-buyer'), 'an empty folder prunes nothing');
      assert.ok(await resource('AuthStrategy', 'extra-keys'));

      for (const file of files) await rename(path.join(aside, file), path.join(app.resourcesDir, file));
      await rm(path.join(app.resourcesDir, 'extra-keys.yaml'));
      await writeFile(path.join(app.resourcesDir, 'broken.yaml'), 'kind: [unclosed');
      await app.service.sync.syncFolder();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.ok(await resource('AuthStrategy', 'extra-keys'), 'a malformed file stops pruning');

      await rm(path.join(app.resourcesDir, 'broken.yaml'));
      await app.service.sync.syncFolder();
      assert.equal(
        await resource('AuthStrategy', 'extra-keys'),
        undefined,
        'pruned once the folder is sound',
      );
      assert.ok(await resource('RoleBinding', 'gina-buyer'));
      assert.ok(await resource('RoleBinding', 'hank-buyer'), 'applied with the CLI: never pruned');
    });

    test('deleting a RoleBinding file denies its actor within seconds on every instance', async () => {
      const onOther = me(other?.base ?? '');
      const token = await signToken(
        key,
        { iss: 'https://login.acme.test', aud: 'records', sub: 'gina' },
        new Date(),
      );
      const granted = await onOther(token);
      assert.equal(granted.status, 200);
      assert.ok(((await granted.json()) as { data: { roles: string[] } }).data.roles.includes('buyer'));
      await new Promise((resolve) => setTimeout(resolve, 1100)); // the token's iat is in whole seconds

      await rm(path.join(app.resourcesDir, 'gina-buyer.yaml'));
      const deletedAt = Date.now();
      let status = 200;
      while (status === 200 && Date.now() - deletedAt < 10_000) {
        status = (await onOther(token)).status;
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const took = Date.now() - deletedAt;
      console.log(`# the deleted binding was refused on the other instance after ${took} ms`);
      assert.equal(status, 401);
      assert.ok(took < 5000, `took ${took} ms`);
      // This instance refuses within its own revocation poll too (each instance polls on its own clock).
      const onThis = () =>
        app.service.app.inject({
          method: 'GET',
          url: '/api/auth/me',
          headers: { authorization: `Bearer ${token}` },
        });
      let here = (await onThis()).statusCode;
      while (here === 200 && Date.now() - deletedAt < 5000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        here = (await onThis()).statusCode;
      }
      assert.equal(here, 401, `refused here after ${Date.now() - deletedAt} ms`);
      assert.equal(await resource('RoleBinding', 'gina-buyer'), undefined);
      const { rows } = await app.database.pool.query<{ revoked: boolean }>(
        `SELECT revoked_at IS NOT NULL AS revoked FROM records.role_bindings WHERE name = 'gina-buyer'`,
      );
      assert.equal(rows[0]?.revoked, true, 'revoked like DELETE /api/platform/role-bindings/{name}');
      assert.ok(await resource('RoleBinding', 'erin-buyer'), 'the other bindings stay');
    });

    test('deleting a schema file keeps the schema and its data (schemas are never pruned)', async () => {
      await rm(path.join(app.resourcesDir, 'suppliers.yaml'));
      await app.service.sync.syncFolder();
      assert.equal((await resource('SchemaDefinition', suppliersPath))?.origin, 'detached');
      assert.ok(app.service.registry.resolve(suppliersPath), 'still served');
    });
  },
);
