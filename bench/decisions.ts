/**
 * npm run bench:decisions — evaluations per second of a 50-rule UNIQUE decision table with 4 inputs:
 * compiled once and evaluated in process (target ≥ 50,000/s on one core); through
 * DecisionService.evaluateForProcess (the engine's path: one indexed query, compiled file cached);
 * and over real HTTP with POST /api/v1/decisions/{key}/evaluate (32 connections), beside the floor of
 * the same server answering GET /api/v1/me with the same JWT. Not a test: it prints figures.
 *
 * BENCH_SECONDS (default 10) sets each HTTP run's length; BENCH_DATABASE_URL uses another server.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { loadConfig } from '../src/platform/config/index.js';
import { migrate } from '../src/platform/database/migrate.js';
import { createPool } from '../src/platform/database/pool.js';
import { createLogger } from '../src/platform/logging/logger.js';
import { createRateLimitStore } from '../src/platform/rate-limit/limiter.js';
import { hashPassword } from '../src/workflow/identity/auth/passwords.js';
import { compileDmn, evaluateDecision } from '../src/lib/dmn/index.js';
import { DecisionService } from '../src/workflow/decisions/decision-service.js';
import { createWorkflowService, workflowMigrationsDir } from '../src/workflow/index.js';
import { insertUser } from '../src/workflow/identity/users/user-repository.js';
import { definitions, inputData, tableXml } from '../test/lib/dmn/dmn-fixtures.js';
import { startBenchServer } from './support/bench-database.js';
import { load, startServerProcess, type LoadResult } from './support/load.js';
import { benchSigningKey } from './support/workflow-server.js';

const seconds = Number(process.env.BENCH_SECONDS ?? '10');
const connections = 32;
const serverFile = fileURLToPath(new URL('./auth-server.ts', import.meta.url));

// A 50-rule table with ranges, lists, negation and "-" entries.
const rules: [string[], string[]][] = [];
for (let i = 0; i < 50; i++) {
  rules.push([
    [`[${i * 10}..${i * 10 + 10})`, i % 2 === 0 ? '"gold","silver"' : 'not("gold","silver")', '>= 18', '-'],
    [`"rule ${i}"`],
  ]);
}
const xml = definitions(`
  ${inputData('i1', 'score', 'number')}${inputData('i2', 'tier', 'string')}
  ${inputData('i3', 'age', 'number')}${inputData('i4', 'country', 'string')}
  <decision id="route" name="Route">
    <informationRequirement><requiredInput href="#i1"/></informationRequirement>
    <informationRequirement><requiredInput href="#i2"/></informationRequirement>
    <informationRequirement><requiredInput href="#i3"/></informationRequirement>
    <informationRequirement><requiredInput href="#i4"/></informationRequirement>
    ${tableXml({ hitPolicy: 'UNIQUE', inputs: ['score', 'tier', 'age', 'country'], outputs: [{ name: 'route' }], rules })}
  </decision>`);
const tiers = ['gold', 'silver', 'bronze'];
const inputs = Array.from({ length: 1000 }, (_, i) => ({
  score: (i * 37) % 500,
  tier: tiers[i % 3] ?? 'gold',
  age: 18 + (i % 50),
  country: 'NL',
}));

/** Evaluations per second of the compiled table, in this process, on one core. */
function inProcess(): number {
  const compiled = compileDmn(xml);
  for (let i = 0; i < 20_000; i++) evaluateDecision(compiled, 'route', inputs[i % 1000] ?? {});
  const n = 300_000;
  let matched = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    if (evaluateDecision(compiled, 'route', inputs[i % 1000] ?? {}).result !== null) matched++;
  }
  // About half the inputs match a rule: the tier condition alternates between neighbouring rules.
  if (matched === 0) throw new Error('no input matched a rule');
  return n / (Number(process.hrtime.bigint() - start) / 1e9);
}

/** Evaluations per second through evaluateForProcess with `concurrency` callers for `duration` s. */
async function throughService(
  service: DecisionService,
  orgId: string,
  concurrency: number,
  duration: number,
): Promise<number> {
  let done = 0;
  const until = Date.now() + duration * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = worker; Date.now() < until; i += concurrency) {
        await service.evaluateForProcess(orgId, 'route', null, inputs[i % 1000] ?? {});
        done++;
      }
    }),
  );
  return done / duration;
}

/** Runs autocannon POSTing the bodies in turn, after a 2 s warm-up. */
async function loadPost(url: string, headers: Record<string, string>, bodies: string[]): Promise<LoadResult> {
  const run = (duration: number) =>
    autocannon({
      url,
      connections,
      duration,
      requests: bodies.map((body) => ({ method: 'POST' as const, headers, body })),
    });
  await run(2);
  const result = await run(seconds);
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

const perSecondInProcess = inProcess();

const server = await startBenchServer();
try {
  const url = await server.createDatabase('weft_bench_decisions');
  const pool = createPool(url, { max: 10, applicationName: 'bench-setup' });
  await migrate(pool, 'workflow', workflowMigrationsDir);
  const user = await insertUser(pool, {
    email: 'bench@example.com',
    passwordHash: await hashPassword('bench password'),
    authProvider: 'internal',
  });
  const { rows } = await pool.query<{ id: string }>(
    `WITH o AS (INSERT INTO orgs (name, slug) VALUES ('Bench', 'bench') RETURNING id),
          m AS (INSERT INTO memberships (org_id, user_id, roles) SELECT id, $1, '{Developer}' FROM o)
     SELECT id FROM o`,
    [user.id],
  );
  const orgId = rows[0]?.id ?? '';

  const logger = createLogger('warn');
  const setup = await createWorkflowService({
    config: loadConfig({
      WORKFLOW_DATABASE_URL: url,
      WORKFLOW_JWT_SIGNING_KEY: benchSigningKey,
    }),
    pool,
    databaseUrl: url,
    logger,
    rateLimitStore: createRateLimitStore(undefined, logger),
  });
  const login = await setup.app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email: 'bench@example.com', password: 'bench password' },
  });
  const jwt = (login.json() as { access_token: string }).access_token;
  const deployed = await setup.app.inject({
    method: 'POST',
    url: '/api/v1/decisions',
    headers: { authorization: `Bearer ${jwt}`, 'x-org-id': orgId },
    payload: { xml },
  });
  if (deployed.statusCode !== 201) throw new Error(`deploy failed: ${deployed.body}`);
  await setup.close();

  const service = new DecisionService(pool);
  await throughService(service, orgId, 32, 2);
  const perSecondService = await throughService(service, orgId, 32, seconds);
  await pool.end();

  const weft = await startServerProcess(serverFile, { BENCH_WORKFLOW_URL: url, BENCH_MODE: 'weft' });
  let viaHttp: LoadResult;
  let floor: LoadResult;
  try {
    const headers = { authorization: `Bearer ${jwt}`, 'x-org-id': orgId, 'content-type': 'application/json' };
    const base = `http://127.0.0.1:${weft.port}`;
    floor = await load(`${base}/api/v1/me`, { connections, seconds, headers });
    viaHttp = await loadPost(
      `${base}/api/v1/decisions/route/evaluate`,
      headers,
      inputs.slice(0, 50).map((variables) => JSON.stringify({ variables })),
    );
  } finally {
    await weft.stop();
  }

  const row = (name: string, result: LoadResult) =>
    `${name.padEnd(36)} ${result.requestsPerSecond.toFixed(0).padStart(8)} req/s   p50 ${String(result.p50Ms).padStart(3)} ms   p99 ${String(result.p99Ms).padStart(3)} ms   errors ${result.errors + result.non2xx}`;
  console.log(`\nbench:decisions — 50-rule UNIQUE table, 4 inputs`);
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, ${server.describe}\n`,
  );
  console.log(
    `${'in process, compiled once (one core)'.padEnd(36)} ${perSecondInProcess.toFixed(0).padStart(8)} evaluations/s   (target ≥ 50,000)`,
  );
  console.log(
    `${'evaluateForProcess, 32 concurrent'.padEnd(36)} ${perSecondService.toFixed(0).padStart(8)} evaluations/s   (1 query each, compiled file cached)`,
  );
  console.log(`\nHTTP, ${connections} connections, ${seconds} s per run, JWT:`);
  console.log(row('floor: GET /api/v1/me', floor));
  console.log(row('POST /api/v1/decisions/route/evaluate', viaHttp));
  console.log(
    `\nevaluate / floor     ${(viaHttp.requestsPerSecond / floor.requestsPerSecond).toFixed(2)}   (evaluation adds one query and the table to the floor's work)`,
  );
} finally {
  await server.stop();
}
