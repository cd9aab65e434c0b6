/**
 * npm run bench:engine — start → external service task → end, with history on, workers using the
 * shipped ExternalTaskWorker over real HTTP. Prints instances completed per second and p50/p99
 * start-to-complete latency, and in the same run the floor: the same three transactions (insert
 * instance + job; lock job; finish job + instance) as raw SQL through a pool of the same size.
 *
 * Floor and engine run in alternating rounds (see support/interleave.ts): BENCH_ROUNDS (default 5)
 * pairs of BENCH_INSTANCES (default 1000) instances each; the ratio is the median of the rounds'.
 * BENCH_WORKERS (default 4), BENCH_DATABASE_URL for another server.
 *
 * Then BENCH_ROUNDS more alternating pairs compare workers on the same service: weft/worker against
 * Camunda 7's camunda-external-task-client-js through /engine-rest (HTTP Basic, or the bench's JWT
 * with BENCH_CAMUNDA_AUTH=bearer), and print camunda/native (median of the pairs; target 0.8).
 */
import { randomUUID } from 'node:crypto';
import { BasicAuthInterceptor, Client, Variables } from 'camunda-external-task-client-js';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { createPool, withTransaction, type Pool } from '../src/platform/database/pool.js';
import { compileBpmn } from '../src/workflow/engine/model/index.js';
import { ExternalTaskWorker } from '../src/worker/index.js';
import { startBenchServer } from './support/bench-database.js';
import { percentile, runConcurrently } from './support/concurrency.js';
import { interleave } from './support/interleave.js';
import { startServerProcess, type ServerProcess } from './support/load.js';
import { benchAdmin, prepareWorkflowBenchDatabase, workflowClient } from './support/workflow-client.js';

const instances = Number(process.env.BENCH_INSTANCES ?? '1000');
const rounds = Number(process.env.BENCH_ROUNDS ?? '5');
const workerCount = Number(process.env.BENCH_WORKERS ?? '4');
const startConcurrency = 16;
const poolSize = 10;
// Both kinds of workers fetch and run this many tasks at a time, long-poll this long, lock this long.
const maxTasks = 32;
const asyncResponseTimeoutMs = 5_000;
const lockDurationMs = 60_000;

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

/** The same process under another key and topic, worked by Camunda's clients. */
const camundaBpmn = bpmn
  .replace('id="bench"', 'id="bench-c7"')
  .replace('camunda:topic="work"', 'camunda:topic="work-c7"');

/** One round's figures. */
interface Round {
  perSecond: number;
  p50: number;
  p99: number;
  /** CPU milliseconds per instance of the bench process (starts and workers) and of the service. */
  benchCpuMs?: number;
  serviceCpuMs?: number;
  /** fetchAndLock answers per instance (Camunda's client only: weft's worker does not count them). */
  fetchesPerInstance?: number;
}

/** A runner that measures one round of `instances` instances, and closes. */
interface Runner {
  round(): Promise<Round>;
  close(): Promise<void>;
}

/** The benchmark's two ways of working the same process: weft's worker, and Camunda 7's client. */
interface Engine {
  /** A round worked by weft/worker. */
  native: () => Promise<Round>;
  /** A round worked by camunda-external-task-client-js through /engine-rest. */
  camunda: () => Promise<Round>;
  close(): Promise<void>;
}

/**
 * The workflow service in its own process with the model deployed twice — `bench` (topic `work`)
 * for weft's workers and `bench-c7` (topic `work-c7`) for Camunda's clients, so each kind's idle
 * long polls never take the other's tasks — a token, and both kinds of workers running. Instances
 * of both are started through weft's API by the same client; only the worker differs.
 */
async function openEngine(url: string): Promise<Engine> {
  const server: ServerProcess = await startServerProcess(
    fileURLToPath(new URL('./engine-server.ts', import.meta.url)),
    { BENCH_WORKFLOW_URL: url, BENCH_POOL_SIZE: String(poolSize) },
  );
  const base = `http://127.0.0.1:${server.port}`;
  const call = await workflowClient(base);
  const org = await call('POST', '/api/v1/orgs', { name: 'Bench', slug: 'bench' });
  const group = await call('POST', `/api/v1/orgs/${org.id}/process-groups`, { name: 'bench' });
  for (const model of [bpmn, camundaBpmn])
    await call('POST', '/api/v1/deployments', { org_id: org.id, process_group_id: group.id, xml: model });
  const watch = createPool(url, { max: 1, applicationName: 'bench-watch' });

  // A completion answered means its instance ended (start → task → end): counted as it is
  // answered, as the floor counts its finished jobs, rather than by polling the database.
  const counter = () => {
    let completed = 0;
    const waiting: (() => void)[] = [];
    return {
      add: () => {
        completed++;
        for (const wake of waiting.splice(0)) wake();
      },
      reached: async (count: number) => {
        while (completed < count) await new Promise<void>((resolve) => waiting.push(resolve));
      },
    };
  };
  const runner = (processKey: string, completions: ReturnType<typeof counter>) => {
    let completedBefore = 0;
    return async (): Promise<Round> => {
      const benchCpu = process.cpuUsage();
      const serviceCpu = await cpuMsOf(server.pid);
      const started = new Date();
      await runConcurrently(instances, startConcurrency, async () => {
        await call('POST', '/api/v1/process-instances', {
          org_id: org.id ?? '',
          process_key: processKey,
          variables: { n: 1 },
        });
      });
      await completions.reached(completedBefore + instances);
      const elapsed = (Date.now() - started.getTime()) / 1000;
      completedBefore += instances;
      const benchCpuUsed = process.cpuUsage(benchCpu);
      const serviceCpuMs = ((await cpuMsOf(server.pid)) - serviceCpu) / instances;
      const { rows } = await watch.query<{ ms: number }>(
        `SELECT extract(epoch FROM ended_at - started_at) * 1000 AS ms FROM process_instances
         WHERE started_at >= $1 AND process_key = $2 ORDER BY 1`,
        [started, processKey],
      );
      const latencies = rows.map((row) => Number(row.ms));
      return {
        perSecond: instances / elapsed,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        benchCpuMs: (benchCpuUsed.user + benchCpuUsed.system) / 1000 / instances,
        serviceCpuMs,
      };
    };
  };

  const nativeCompletions = counter();
  const workers = Array.from({ length: workerCount }, (_, i) => {
    const worker = new ExternalTaskWorker({
      baseUrl: base,
      workerId: `bench-${i}`,
      maxTasks,
      concurrency: maxTasks,
      lockDurationMs,
      asyncResponseTimeoutMs,
      pollIntervalMs: 0,
      autoExtendLock: false,
    });
    worker.subscribe('work', () => Promise.resolve({ done: true }));
    worker.on('task:completed', nativeCompletions.add);
    return worker;
  });
  for (const worker of workers) worker.start();

  // Camunda's client as its users run it: HTTP Basic with an email and password on every request
  // (BENCH_CAMUNDA_AUTH=bearer sends the bench's JWT instead), got's default agent.
  const camundaCompletions = counter();
  const camundaErrors: unknown[] = [];
  let camundaFetches = 0;
  const bearer =
    process.env.BENCH_CAMUNDA_AUTH === 'bearer' ? await call('POST', '/api/v1/auth/login', benchAdmin) : null;
  const clients = Array.from({ length: workerCount }, (_, i) => {
    const client = new Client({
      baseUrl: `${base}/engine-rest`,
      workerId: `camunda-${i}`,
      maxTasks,
      maxParallelExecutions: maxTasks,
      lockDuration: lockDurationMs,
      asyncResponseTimeout: asyncResponseTimeoutMs,
      usePriority: false,
      interval: 0,
      autoPoll: false,
      interceptors: bearer
        ? (config) => ({
            ...config,
            headers: { ...(config.headers as object), Authorization: `Bearer ${bearer.access_token}` },
          })
        : new BasicAuthInterceptor({ username: benchAdmin.email, password: benchAdmin.password }),
    });
    client.subscribe('work-c7', {}, async ({ task, taskService }) => {
      await taskService.complete(task, new Variables().set('done', true));
    });
    client.on('complete:success', camundaCompletions.add);
    client.on('poll:success', () => camundaFetches++);
    for (const event of ['poll:error', 'complete:error'])
      client.on(event, (...args) => camundaErrors.push([event, ...args]));
    return client;
  });
  for (const client of clients) client.start();
  const camundaRound = runner('bench-c7', camundaCompletions);

  return {
    native: runner('bench', nativeCompletions),
    camunda: async () => {
      const fetchesBefore = camundaFetches;
      const round = { ...(await camundaRound()), fetchesPerInstance: 0 };
      round.fetchesPerInstance = (camundaFetches - fetchesBefore) / instances;
      if (camundaErrors.length > 0) throw new Error(`Camunda client errors: ${String(camundaErrors[0])}`);
      return round;
    },
    close: async () => {
      for (const client of clients) client.stop();
      await Promise.all(workers.map((worker) => worker.stop()));
      await watch.end();
      await server.stop();
    },
  };
}

/** User and system CPU milliseconds `pid` has used (NaN where /proc cannot tell). */
async function cpuMsOf(pid: number | undefined): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
  } catch {
    return NaN;
  }
}
const ticksPerSecond = 100;

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
  const [result, camunda] = await (async () => {
    try {
      // Warm-up of all: connections, prepared statements, JIT, cached credentials.
      await floor.round();
      await engine.native();
      await engine.camunda();
      return [
        await interleave(
          rounds,
          () => floor.round(),
          () => engine.native(),
          (round) => round.perSecond,
        ),
        // Then the same instances worked by Camunda's client against weft's worker, alternating.
        await interleave(
          rounds,
          () => engine.native(),
          () => engine.camunda(),
          (round) => round.perSecond,
        ),
      ] as const;
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
  const row = (label: string, figures: Round[]) =>
    `${label.padEnd(38)} ${mean(figures.map((r) => r.perSecond))
      .toFixed(0)
      .padStart(
        6,
      )} instances/s   p50 ${middle(figures.map((r) => r.p50)).toFixed(0)} ms   p99 ${middle(figures.map((r) => r.p99)).toFixed(0)} ms   CPU/instance: bench ${middle(figures.map((r) => r.benchCpuMs ?? NaN)).toFixed(2)} ms, service ${middle(figures.map((r) => r.serviceCpuMs ?? NaN)).toFixed(2)} ms`;
  console.log(
    `floor (raw SQL, same 3 transactions)   ${mean(result.floors.map((r) => r.perSecond))
      .toFixed(0)
      .padStart(6)} instances/s`,
  );
  console.log(row('weft engine over HTTP', result.subjects));
  console.log(
    `\nengine / floor  ${result.ratio.toFixed(2)}   (rounds ${result.ratios.map((ratio) => ratio.toFixed(2)).join(' ')}; target ≥ 0.50)`,
  );
  const auth = process.env.BENCH_CAMUNDA_AUTH === 'bearer' ? 'Bearer' : 'Basic';
  console.log(`\nworkers compared, ${rounds} more alternating rounds of ${instances} instances:`);
  console.log(row('weft/worker (/api/v1, no token)', camunda.floors));
  console.log(row(`Camunda client (/engine-rest, ${auth})`, camunda.subjects));
  console.log(
    `Camunda client fetchAndLock answers per instance: ${middle(camunda.subjects.map((r) => r.fetchesPerInstance ?? NaN)).toFixed(2)}`,
  );
  console.log(
    `\ncamunda / native  ${camunda.ratio.toFixed(2)}   (rounds ${camunda.ratios.map((ratio) => ratio.toFixed(2)).join(' ')}; target ≥ 0.80)`,
  );
} finally {
  await server.stop();
}
