/**
 * npm run bench:auth — requests per second of GET /api/v1/me with a JWT and with an API key over
 * real HTTP (32 connections), beside the floor: a bare Fastify handler running the same identity
 * query with no authentication, measured in the same run. Not a test: it prints figures.
 *
 * BENCH_SECONDS (default 10) sets each run's length; BENCH_DATABASE_URL uses another server.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/platform/config/index.js';
import { migrate } from '../src/platform/database/migrate.js';
import { createPool } from '../src/platform/database/pool.js';
import { createLogger } from '../src/platform/logging/logger.js';
import { createRateLimitStore } from '../src/platform/rate-limit/limiter.js';
import { hashPassword } from '../src/workflow/identity/auth/passwords.js';
import { createWorkflowService, workflowMigrationsDir } from '../src/workflow/index.js';
import { insertUser } from '../src/workflow/identity/users/user-repository.js';
import { startBenchServer } from './support/bench-database.js';
import { benchSigningKey } from './support/workflow-server.js';
import { load, startServerProcess, type LoadResult } from './support/load.js';

const seconds = Number(process.env.BENCH_SECONDS ?? '10');
const connections = 32;
const serverFile = fileURLToPath(new URL('./auth-server.ts', import.meta.url));

const server = await startBenchServer();
try {
  const url = await server.createDatabase('weft_bench_auth');
  const pool = createPool(url, { max: 2, applicationName: 'bench-setup' });
  await migrate(pool, 'workflow', workflowMigrationsDir);
  const user = await insertUser(pool, {
    email: 'bench@example.com',
    passwordHash: await hashPassword('bench password'),
    authProvider: 'internal',
  });
  await pool.query(
    `WITH o AS (INSERT INTO orgs (name, slug) VALUES ('Bench', 'bench') RETURNING id)
     INSERT INTO memberships (org_id, user_id, roles) SELECT id, $1, '{Developer,Operator}' FROM o`,
    [user.id],
  );

  // Obtain a JWT and an API key through the real endpoints.
  const logger = createLogger('warn');
  const setupConfig = loadConfig({
    WORKFLOW_DATABASE_URL: url,
    WORKFLOW_JWT_SIGNING_KEY: benchSigningKey,
  });
  const setup = await createWorkflowService({
    config: setupConfig,
    pool,
    logger,
    rateLimitStore: createRateLimitStore(undefined, logger),
    databaseUrl: url,
  });
  const login = await setup.app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email: 'bench@example.com', password: 'bench password' },
  });
  const jwt = (login.json() as { access_token: string }).access_token;
  const created = await setup.app.inject({
    method: 'POST',
    url: '/api/v1/api-keys',
    headers: { authorization: `Bearer ${jwt}` },
    payload: { name: 'bench' },
  });
  const apiKey = (created.json() as { plaintext_key: string }).plaintext_key;
  await setup.close();
  await pool.end();

  const env = { BENCH_WORKFLOW_URL: url, BENCH_USER_ID: user.id };
  const measure = async (mode: 'weft' | 'floor', token?: string): Promise<LoadResult> => {
    const process = await startServerProcess(serverFile, { ...env, BENCH_MODE: mode });
    try {
      return await load(`http://127.0.0.1:${process.port}/api/v1/me`, {
        connections,
        seconds,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
    } finally {
      await process.stop();
    }
  };

  const floor = await measure('floor');
  const viaJwt = await measure('weft', jwt);
  const viaKey = await measure('weft', apiKey);

  const row = (name: string, result: LoadResult) =>
    `${name.padEnd(28)} ${result.requestsPerSecond.toFixed(0).padStart(8)} req/s   p50 ${String(result.p50Ms).padStart(3)} ms   p99 ${String(result.p99Ms).padStart(3)} ms   errors ${result.errors + result.non2xx}`;
  console.log(`\nbench:auth — GET /api/v1/me, ${connections} connections, ${seconds} s per run`);
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, ${server.describe}\n`,
  );
  console.log(row('floor (Fastify + pg, no auth)', floor));
  console.log(row('weft, JWT', viaJwt));
  console.log(row('weft, API key', viaKey));
  console.log('');
  console.log(
    `API key / JWT        ${(viaKey.requestsPerSecond / viaJwt.requestsPerSecond).toFixed(2)}   (target ≥ 0.80)`,
  );
  console.log(
    `JWT / floor          ${(viaJwt.requestsPerSecond / floor.requestsPerSecond).toFixed(2)}   (target ≥ 0.50)`,
  );
  console.log(
    `API key / floor      ${(viaKey.requestsPerSecond / floor.requestsPerSecond).toFixed(2)}   (target ≥ 0.50)`,
  );
} finally {
  await server.stop();
}
