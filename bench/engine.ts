/**
 * npm run bench:engine — start → external service task → end, with history on, workers using the
 * shipped ExternalTaskWorker over real HTTP. Prints instances completed per second and p50/p99
 * start-to-complete latency, and in the same run the floor: the same three transactions (insert
 * instance + job; lock job; finish job + instance) as raw SQL through a pool of the same size.
 *
 * BENCH_INSTANCES (default 3000), BENCH_WORKERS (default 4), BENCH_DATABASE_URL for another server.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { migrate } from '../src/platform/database/migrate.js';
import { createPool, withTransaction, type Pool } from '../src/platform/database/pool.js';
import { compileBpmn } from '../src/workflow/engine/model/index.js';
import { workflowMigrationsDir } from '../src/workflow/index.js';
import { ExternalTaskWorker } from '../src/workflow/worker/index.js';
import { hashPassword } from '../src/workflow/auth/passwords.js';
import { insertUser } from '../src/workflow/users/user-repository.js';
import { startBenchServer } from './support/bench-database.js';
import { startServerProcess } from './support/load.js';

const instances = Number(process.env.BENCH_INSTANCES ?? '3000');
const workerCount = Number(process.env.BENCH_WORKERS ?? '4');
const startConcurrency = 16;
const poolSize = 10;

const bpmn = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="D" targetNamespace="urn:bench">
  <bpmn:process id="bench" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:serviceTask id="work" camunda:type="external" camunda:topic="work" />
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function runConcurrently(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

async function setup(url: string) {
  const pool = createPool(url, { max: 2, applicationName: 'bench-setup' });
  await migrate(pool, 'workflow', workflowMigrationsDir);
  const user = await insertUser(pool, {
    email: 'bench@example.com',
    passwordHash: await hashPassword('bench password'),
    authProvider: 'internal',
    globalRoles: ['PlatformAdmin'],
  });
  await pool.end();
  return user;
}

async function measureEngine(url: string): Promise<{ perSecond: number; p50: number; p99: number }> {
  const server = await startServerProcess(fileURLToPath(new URL('./engine-server.ts', import.meta.url)), {
    BENCH_WORKFLOW_URL: url,
    BENCH_POOL_SIZE: String(poolSize),
  });
  const base = `http://127.0.0.1:${server.port}`;
  const call = async (method: string, path: string, token: string | null, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? null : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<Record<string, string>>;
  };
  try {
    const { access_token: token } = await call('POST', '/api/v1/auth/login', null, {
      email: 'bench@example.com',
      password: 'bench password',
    });
    const tokenValue = token ?? '';
    const org = await call('POST', '/api/v1/orgs', tokenValue, { name: 'Bench', slug: 'bench' });
    const group = await call('POST', `/api/v1/orgs/${org.id}/process-groups`, tokenValue, { name: 'bench' });
    await call('POST', '/api/v1/deployments', tokenValue, {
      org_id: org.id,
      process_group_id: group.id,
      xml: bpmn,
    });

    const workers = Array.from({ length: workerCount }, (_, i) => {
      const worker = new ExternalTaskWorker({
        baseUrl: base,
        workerId: `bench-${i}`,
        maxTasks: 32,
        concurrency: 32,
        asyncResponseTimeoutMs: 5_000,
        pollIntervalMs: 0,
        autoExtendLock: false,
      });
      worker.subscribe('work', () => Promise.resolve({ done: true }));
      return worker;
    });
    for (const worker of workers) worker.start();
    const started = Date.now();
    await runConcurrently(instances, startConcurrency, async () => {
      await call('POST', '/api/v1/process-instances', tokenValue, {
        org_id: org.id ?? '',
        process_key: 'bench',
        variables: { n: 1 },
      });
    });
    const pool = createPool(url, { max: 1, applicationName: 'bench-watch' });
    for (;;) {
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM process_instances WHERE state = 'completed'`,
      );
      if ((rows[0]?.n ?? 0) >= instances) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const elapsed = (Date.now() - started) / 1000;
    const { rows } = await pool.query<{ ms: number }>(
      `SELECT extract(epoch FROM ended_at - started_at) * 1000 AS ms FROM process_instances ORDER BY 1`,
    );
    await pool.end();
    await Promise.all(workers.map((worker) => worker.stop()));
    const latencies = rows.map((row) => Number(row.ms));
    return { perSecond: instances / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  } finally {
    await server.stop();
  }
}

/** The three transactions of one instance, as plain SQL with no engine, HTTP or JSON state. */
async function measureFloor(url: string): Promise<number> {
  const pool: Pool = createPool(url, { max: poolSize, applicationName: 'bench-floor' });
  await pool.query(`CREATE TABLE floor_instances (id uuid PRIMARY KEY, state text, variables jsonb, started_at timestamptz, ended_at timestamptz);
                    CREATE TABLE floor_jobs (id uuid PRIMARY KEY, instance_id uuid, topic text, worker_id text, locked_until timestamptz, created_at timestamptz DEFAULT now());
                    CREATE INDEX ON floor_jobs (topic, created_at)`);
  const started = Date.now();
  const producing = runConcurrently(instances, startConcurrency, async () => {
    await withTransaction(pool, async (client) => {
      const id = randomUUID();
      await client.query(`INSERT INTO floor_instances VALUES ($1, 'running', '{"n":1}', now(), null)`, [id]);
      await client.query(`INSERT INTO floor_jobs (id, instance_id, topic) VALUES ($1, $2, 'work')`, [
        randomUUID(),
        id,
      ]);
    });
  });
  let finished = 0;
  const consuming = Promise.all(
    Array.from({ length: workerCount }, async () => {
      while (finished < instances) {
        const { rows } = await pool.query<{ id: string; instance_id: string }>(
          `UPDATE floor_jobs j SET worker_id = 'w', locked_until = now() + interval '1 minute'
           FROM (SELECT id FROM floor_jobs WHERE topic = 'work' AND worker_id IS NULL ORDER BY created_at LIMIT 32 FOR UPDATE SKIP LOCKED) c
           WHERE j.id = c.id RETURNING j.id, j.instance_id`,
        );
        if (rows.length === 0) {
          await new Promise((resolve) => setTimeout(resolve, 1));
          continue;
        }
        await Promise.all(
          rows.map((job) =>
            withTransaction(pool, async (client) => {
              await client.query('DELETE FROM floor_jobs WHERE id = $1', [job.id]);
              await client.query(
                `UPDATE floor_instances SET state = 'completed', ended_at = now() WHERE id = $1`,
                [job.instance_id],
              );
              finished++;
            }),
          ),
        );
      }
    }),
  );
  await Promise.all([producing, consuming]);
  const elapsed = (Date.now() - started) / 1000;
  await pool.end();
  return instances / elapsed;
}

const server = await startBenchServer();
try {
  const engineUrl = await server.createDatabase('weft_bench_engine');
  await setup(engineUrl);
  const floorUrl = await server.createDatabase('weft_bench_engine_floor');
  // Compiles once to fail early on a broken model.
  if (!(await compileBpmn(bpmn)).ok) throw new Error('benchmark model does not compile');
  const floor = await measureFloor(floorUrl);
  const engine = await measureEngine(engineUrl);
  console.log(
    `\nbench:engine — start → external task → end, ${instances} instances, ${workerCount} workers, history on`,
  );
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, ${server.describe}\n`,
  );
  console.log(`floor (raw SQL, same 3 transactions)   ${floor.toFixed(0).padStart(6)} instances/s`);
  console.log(
    `weft engine over HTTP                  ${engine.perSecond.toFixed(0).padStart(6)} instances/s   p50 ${engine.p50.toFixed(0)} ms   p99 ${engine.p99.toFixed(0)} ms`,
  );
  console.log(`\nengine / floor  ${(engine.perSecond / floor).toFixed(2)}   (target ≥ 0.50)`);
} finally {
  await server.stop();
}
