/**
 * npm run bench:engine — start → external service task → end, with history on, workers using the
 * shipped ExternalTaskWorker over real HTTP. Prints instances completed per second and p50/p99
 * start-to-complete latency, and in the same run the floor: the same three transactions (insert
 * instance + job; lock job; finish job + instance) as raw SQL through a pool of the same size.
 *
 * Floor and engine run in alternating rounds (see support/interleave.ts): BENCH_ROUNDS (default 5)
 * pairs of BENCH_INSTANCES (default 1000) instances each; the ratio is the median of the rounds'.
 * BENCH_WORKERS (default 4), BENCH_DATABASE_URL for another server.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { createPool, withTransaction, type Pool } from '../src/platform/database/pool.js';
import { compileBpmn } from '../src/workflow/engine/model/index.js';
import { ExternalTaskWorker } from '../src/worker/index.js';
import { startBenchServer } from './support/bench-database.js';
import { percentile, runConcurrently } from './support/concurrency.js';
import { interleave } from './support/interleave.js';
import { startServerProcess, type ServerProcess } from './support/load.js';
import { prepareWorkflowBenchDatabase, workflowClient } from './support/workflow-client.js';

const instances = Number(process.env.BENCH_INSTANCES ?? '1000');
const rounds = Number(process.env.BENCH_ROUNDS ?? '5');
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

/** One round's figures. */
interface Round {
  perSecond: number;
  p50: number;
  p99: number;
}

/** A runner that measures one round of `instances` instances, and closes. */
interface Runner {
  round(): Promise<Round>;
  close(): Promise<void>;
}

/** The workflow service in its own process with deployed model, a token and running workers. */
async function openEngine(url: string): Promise<Runner> {
  let completed = 0;
  const waiting: (() => void)[] = [];
  const server: ServerProcess = await startServerProcess(
    fileURLToPath(new URL('./engine-server.ts', import.meta.url)),
    { BENCH_WORKFLOW_URL: url, BENCH_POOL_SIZE: String(poolSize) },
  );
  const base = `http://127.0.0.1:${server.port}`;
  const call = await workflowClient(base);
  const org = await call('POST', '/api/v1/orgs', { name: 'Bench', slug: 'bench' });
  const group = await call('POST', `/api/v1/orgs/${org.id}/process-groups`, { name: 'bench' });
  await call('POST', '/api/v1/deployments', { org_id: org.id, process_group_id: group.id, xml: bpmn });
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
    // A completion answered means its instance ended (start → task → end): counted here, as the
    // floor counts its finished jobs, rather than by polling the database during the round.
    worker.on('task:completed', () => {
      completed++;
      for (const wake of waiting.splice(0)) wake();
    });
    return worker;
  });
  for (const worker of workers) worker.start();
  const watch = createPool(url, { max: 1, applicationName: 'bench-watch' });
  let completedBefore = 0;
  return {
    round: async () => {
      const started = new Date();
      await runConcurrently(instances, startConcurrency, async () => {
        await call('POST', '/api/v1/process-instances', {
          org_id: org.id ?? '',
          process_key: 'bench',
          variables: { n: 1 },
        });
      });
      while (completed < completedBefore + instances) {
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
      const elapsed = (Date.now() - started.getTime()) / 1000;
      completedBefore += instances;
      const { rows } = await watch.query<{ ms: number }>(
        `SELECT extract(epoch FROM ended_at - started_at) * 1000 AS ms FROM process_instances
         WHERE started_at >= $1 ORDER BY 1`,
        [started],
      );
      const latencies = rows.map((row) => Number(row.ms));
      return {
        perSecond: instances / elapsed,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
      };
    },
    close: async () => {
      await Promise.all(workers.map((worker) => worker.stop()));
      await watch.end();
      await server.stop();
    },
  };
}

/** The three transactions of one instance, as plain SQL with no engine, HTTP or JSON state. */
async function openFloor(url: string): Promise<Runner> {
  const pool: Pool = createPool(url, { max: poolSize, applicationName: 'bench-floor' });
  await pool.query(`CREATE TABLE floor_instances (id uuid PRIMARY KEY, state text, variables jsonb, started_at timestamptz, ended_at timestamptz);
                    CREATE TABLE floor_jobs (id uuid PRIMARY KEY, instance_id uuid, topic text, worker_id text, locked_until timestamptz, created_at timestamptz DEFAULT now());
                    CREATE INDEX ON floor_jobs (topic, created_at)`);
  return {
    round: async () => {
      const started = Date.now();
      const producing = runConcurrently(instances, startConcurrency, async () => {
        await withTransaction(pool, async (client) => {
          const id = randomUUID();
          await client.query(`INSERT INTO floor_instances VALUES ($1, 'running', '{"n":1}', now(), null)`, [
            id,
          ]);
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
      return { perSecond: instances / elapsed, p50: NaN, p99: NaN };
    },
    close: () => pool.end(),
  };
}

const server = await startBenchServer();
try {
  const engineUrl = await server.createDatabase('weft_bench_engine');
  await prepareWorkflowBenchDatabase(engineUrl);
  const floorUrl = await server.createDatabase('weft_bench_engine_floor');
  // Compiles once to fail early on a broken model.
  if (!(await compileBpmn(bpmn)).ok) throw new Error('benchmark model does not compile');
  const floor = await openFloor(floorUrl);
  const engine = await openEngine(engineUrl);
  const result = await (async () => {
    try {
      // Warm-up of both: connections, prepared statements, JIT.
      await floor.round();
      await engine.round();
      return await interleave(
        rounds,
        () => floor.round(),
        () => engine.round(),
        (round) => round.perSecond,
      );
    } finally {
      await Promise.all([floor.close(), engine.close()]);
    }
  })();
  console.log(
    `\nbench:engine — start → external task → end, ${rounds} alternating rounds of ${instances} instances, ${workerCount} workers, history on`,
  );
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, ${server.describe}, load ${os.loadavg()[0]?.toFixed(1)}\n`,
  );
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const middle = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
  console.log(
    `floor (raw SQL, same 3 transactions)   ${mean(result.floors.map((r) => r.perSecond))
      .toFixed(0)
      .padStart(6)} instances/s`,
  );
  console.log(
    `weft engine over HTTP                  ${mean(result.subjects.map((r) => r.perSecond))
      .toFixed(0)
      .padStart(
        6,
      )} instances/s   p50 ${middle(result.subjects.map((r) => r.p50)).toFixed(0)} ms   p99 ${middle(result.subjects.map((r) => r.p99)).toFixed(0)} ms`,
  );
  console.log(
    `\nengine / floor  ${result.ratio.toFixed(2)}   (rounds ${result.ratios.map((ratio) => ratio.toFixed(2)).join(' ')}; target ≥ 0.50)`,
  );
} finally {
  await server.stop();
}
