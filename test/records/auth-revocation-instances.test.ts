import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/ports.js';
import {
  signToken,
  startJwksServer,
  testKey,
  type JwksServer,
  type TestKey,
} from './support/auth-fixtures.js';
import { authResources } from './support/auth-resources.js';
import { startRecordsApp, type RecordsTestApp } from './support/records-app.js';

const redisUrl = process.env.REDIS_URL;
const child = fileURLToPath(new URL('./support/records-process.ts', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

describe(
  'revocation across two service processes sharing Redis',
  { skip: redisUrl ? false : 'REDIS_URL is unset: this test needs a real Redis' },
  () => {
    let app: RecordsTestApp;
    let jwks: JwksServer;
    let key: TestKey;
    let other: ChildProcess | undefined;
    let otherBase = '';

    before(async () => {
      key = await testKey('k1');
      jwks = await startJwksServer([key.jwk]);
      const env = { REDIS_URL: redisUrl ?? '', RECORDS_REVOCATION_POLL_MS: '200' };
      app = await startRecordsApp(env, { resources: authResources(jwks.url) });
      const port = await freePort();
      otherBase = `http://127.0.0.1:${port}`;
      other = spawn(tsx, [child], {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          ...env,
          RECORDS_DATABASE_URL: app.database.url,
          RECORDS_RESOURCES_DIR: app.resourcesDir,
          RECORDS_PORT: String(port),
          WEFT_DATA_DIR: app.resourcesDir,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      other.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      other.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const deadline = Date.now() + 60_000;
      while (!output.includes('ready')) {
        if (other.exitCode !== null) throw new Error(`the second instance exited:\n${output}`);
        if (Date.now() > deadline) throw new Error(`the second instance did not start:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
    after(async () => {
      if (other && other.exitCode === null) {
        const exited = new Promise((resolve) => other?.once('exit', resolve));
        other.kill('SIGTERM');
        await exited;
      }
      await app?.close();
      await jwks?.close();
    });

    test('a binding revoked on one instance refuses the actor on the other within seconds', async () => {
      const token = await signToken(
        key,
        { iss: 'https://login.acme.test', aud: 'records', sub: 'erin' },
        new Date(),
      );
      const onOther = () =>
        fetch(`${otherBase}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
      const granted = await onOther();
      assert.equal(granted.status, 200);
      assert.ok(((await granted.json()) as { data: { roles: string[] } }).data.roles.includes('buyer'));
      await new Promise((resolve) => setTimeout(resolve, 1100)); // the token's iat is in whole seconds
      const root = await signToken(
        key,
        { iss: 'https://login.acme.test', aud: 'records', sub: 'root' },
        new Date(),
      );
      const revoke = await app.service.app.inject({
        method: 'POST',
        url: '/api/platform/role-bindings/erin-buyer/revoke',
        headers: { authorization: `Bearer ${root}` },
      });
      assert.equal(revoke.statusCode, 204);
      const revokedAt = Date.now();
      let status = 200;
      let message = '';
      while (status === 200 && Date.now() - revokedAt < 5000) {
        const response = await onOther();
        status = response.status;
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 50));
        else message = ((await response.json()) as { message: string }).message;
      }
      const took = Date.now() - revokedAt;
      console.log(`# revocation reached the other instance in ${took} ms`);
      assert.equal(status, 401);
      assert.match(message, /revoked/);
      assert.ok(took < 3000, `took ${took} ms`);
    });
  },
);
