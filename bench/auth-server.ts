/**
 * The servers measured by bench/auth.ts, one per process: `weft` is the real workflow service;
 * `floor` is a bare Fastify handler running the same identity query with no authentication.
 */
import Fastify from 'fastify';
import { createPool } from '../src/platform/database/pool.js';
import { findIdentityByUserId } from '../src/workflow/identity/auth/identity-repository.js';
import { serveWorkflowForBenchmark } from './support/workflow-server.js';

const mode = process.env.BENCH_MODE;
const databaseUrl = process.env.BENCH_WORKFLOW_URL ?? '';
const poolSize = Number(process.env.BENCH_POOL_SIZE ?? '10');

if (mode === 'floor') {
  const userId = process.env.BENCH_USER_ID ?? '';
  const pool = createPool(databaseUrl, { max: poolSize, applicationName: 'bench-floor' });
  const app = Fastify();
  app.get('/api/v1/me', async () => findIdentityByUserId(pool, userId));
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`READY ${new URL(address).port}\n`);
  process.on(
    'SIGTERM',
    () =>
      void app
        .close()
        .then(() => pool.end())
        .then(() => process.exit(0)),
  );
} else {
  await serveWorkflowForBenchmark(databaseUrl, poolSize);
}
