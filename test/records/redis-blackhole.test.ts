import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TcpProxy } from '../helpers/tcp-proxy.js';
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
const skip = redisUrl ? false : 'REDIS_URL is unset: these tests need a real Redis behind the proxy';
if (skip) console.log(`# skipped redis-blackhole tests: ${skip}`);

// A Redis command may take 200 ms; the revocation copy stands in for the store 500 ms.
const env = {
  WEFT_REDIS_COMMAND_TIMEOUT_MS: '200',
  RECORDS_REVOCATION_POLL_MS: '100',
  RECORDS_REVOCATION_GRACE_MS: '500',
};
const boundMs = 1500;

async function eventually(check: () => Promise<boolean>, withinMs: number): Promise<void> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('records with Redis blackholed', { skip }, () => {
  let jwks: JwksServer;
  let key: TestKey;
  before(async () => {
    key = await testKey('k1');
    jwks = await startJwksServer([key.jwk]);
  });
  after(() => jwks.close());

  const call = async (app: RecordsTestApp) =>
    app.service.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: {
        authorization: `Bearer ${await signToken(key, { iss: 'https://login.acme.test', aud: 'records', sub: 'alice' }, new Date())}`,
      },
    });

  for (const failOpen of [true, false]) {
    test(
      failOpen
        ? 'failOpen: 30 concurrent authenticated requests go through fast (rate limits counted in process), then Redis serves again'
        : 'fail closed: 30 concurrent authenticated requests get 503 REVOCATION_UNAVAILABLE fast, then are served again',
      async () => {
        const proxy = await TcpProxy.forUrl(redisUrl!);
        const app = await startRecordsApp(
          { ...env, REDIS_URL: proxy.proxied(redisUrl!) },
          { resources: authResources(jwks.url, { failOpen }) },
        );
        try {
          const healthy = await call(app);
          assert.equal(healthy.statusCode, 200, healthy.body);
          assert.ok(healthy.headers['x-ratelimit-remaining'] !== undefined, 'the rate limiter ran');

          await proxy.blackhole();
          // Past the grace period of the revocation copy, so the strategy's failure mode decides.
          await new Promise((resolve) => setTimeout(resolve, 800));
          const started = performance.now();
          const responses = await Promise.all(Array.from({ length: 30 }, () => call(app)));
          const ms = performance.now() - started;
          assert.ok(ms < boundMs, `the requests took ${Math.round(ms)} ms`);
          for (const response of responses) {
            if (failOpen) {
              assert.equal(response.statusCode, 200, response.body);
              assert.ok(response.headers['x-ratelimit-remaining'] !== undefined);
            } else {
              assert.equal(response.statusCode, 503, response.body);
              const body = response.json<{ code: string; requestId: string }>();
              assert.equal(body.code, 'REVOCATION_UNAVAILABLE');
              assert.equal(body.requestId, response.headers['x-request-id']);
            }
          }
          // A second wave is no slower: the silent connection was dropped, not waited on again.
          const second = performance.now();
          await Promise.all(Array.from({ length: 30 }, () => call(app)));
          assert.ok(performance.now() - second < boundMs);

          await proxy.pass();
          await eventually(async () => {
            const response = await call(app);
            return response.statusCode === 200;
          }, 5000);
        } finally {
          await app.close();
          await proxy.close();
        }
      },
    );
  }
});
