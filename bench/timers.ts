/**
 * npm run bench:timers — BENCH_TIMERS (default 10,000) timers due at the same instant, fired by the
 * leader of a workflow service running in its own process. Prints how long after the due time the
 * last one fired, and the lateness distribution (firing time − due time, p50/p90/p99/max).
 *
 * Two scenarios (BENCH_SCENARIOS, default `catch,start`):
 * - `catch`: instances of start → intermediate timer catch (`timeDate` = `=due`) → end, started over
 *   HTTP with a `due` variable; a firing completes the wait and the instance ends in the same
 *   transaction. The common case: many running instances waiting for one date.
 * - `start`: timer start events (literal `timeDate`), 100 per model in BENCH_TIMERS / 100 process
 *   keys; a firing starts an instance that runs to its end event.
 *
 * The due time is set far enough ahead that seeding ends before it: a warm-up of starts measures the
 * seeding rate first. A timer's firing time is its instance's `ended_at` (catch; the engine's clock
 * in the firing's transaction) or `started_at` (start). BENCH_DATABASE_URL for another server.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { createPool, type Pool } from '../src/platform/database/pool.js';
import { startBenchServer } from './support/bench-database.js';
import { percentile, runConcurrently } from './support/concurrency.js';
import { startServerProcess, type ServerProcess } from './support/load.js';
import {
  prepareWorkflowBenchDatabase,
  workflowClient,
  type WorkflowCall,
} from './support/workflow-client.js';

const timers = Number(process.env.BENCH_TIMERS ?? '10000');
const scenarios = (process.env.BENCH_SCENARIOS ?? 'catch,start').split(',').map((s) => s.trim());
const startsPerModel = 100;
const seedConcurrency = 16;
const poolSize = 10;
const warmupStarts = 300;

const catchBpmn = (key: string) => `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="D" targetNamespace="urn:bench">
  <bpmn:process id="${key}" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:intermediateCatchEvent id="pause">
      <bpmn:timerEventDefinition><bpmn:timeDate>=due</bpmn:timeDate></bpmn:timerEventDefinition>
    </bpmn:intermediateCatchEvent>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="pause" />
    <bpmn:sequenceFlow id="f2" sourceRef="pause" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;

const startBpmn = (key: string, due: string) => {
  const events = Array.from(
    { length: startsPerModel },
    (_, i) => `<bpmn:startEvent id="s${i}">
      <bpmn:timerEventDefinition><bpmn:timeDate>${due}</bpmn:timeDate></bpmn:timerEventDefinition>
    </bpmn:startEvent>
    <bpmn:sequenceFlow id="f${i}" sourceRef="s${i}" targetRef="end" />`,
  ).join('\n    ');
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="D" targetNamespace="urn:bench">
  <bpmn:process id="${key}" isExecutable="true">
    ${events}
    <bpmn:endEvent id="end" />
  </bpmn:process>
</bpmn:definitions>`;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The next whole second at least `ms` from now: every timer is due at that same instant. */
function dueIn(ms: number): Date {
  return new Date(Math.ceil((Date.now() + ms) / 1000) * 1000);
}

/** One scenario's figures. */
interface Result {
  scenario: string;
  seedSeconds: number;
  leadSeconds: number;
  allFiredSeconds: number;
  lateness: number[];
  load: number[];
}

/** Waits until `count` instances matching `where` exist, then reads their firing times. */
async function measure(watch: Pool, where: string, firedColumn: string, count: number, due: Date) {
  const deadline = due.getTime() + 120_000;
  let load: number[] = [];
  for (;;) {
    const { rows } = await watch.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM process_instances WHERE ${where}`,
    );
    if ((rows[0]?.n ?? 0) >= count) break;
    if (Date.now() > due.getTime() && load.length === 0) load = os.loadavg();
    if (Date.now() > deadline) throw new Error(`only ${rows[0]?.n} of ${count} fired 120 s after due`);
    await sleep(50);
  }
  const { rows } = await watch.query<{ ms: number }>(
    `SELECT extract(epoch FROM ${firedColumn} - $1::timestamptz) * 1000 AS ms FROM process_instances
     WHERE ${where} ORDER BY 1`,
    [due],
  );
  return { lateness: rows.map((row) => Number(row.ms)), load };
}

async function catchScenario(
  call: WorkflowCall,
  orgId: string,
  groupId: string,
  watch: Pool,
): Promise<Result> {
  await call('POST', '/api/v1/deployments', {
    org_id: orgId,
    process_group_id: groupId,
    xml: catchBpmn('wait'),
  });
  // Warm-up, due in a day (never fire during the run): connections, JIT, and the seeding rate.
  const later = new Date(Date.now() + 86_400_000).toISOString();
  const start = (due: string) =>
    call('POST', '/api/v1/process-instances', { org_id: orgId, process_key: 'wait', variables: { due } });
  const warmStarted = Date.now();
  await runConcurrently(warmupStarts, seedConcurrency, () => start(later).then(() => undefined));
  const rate = warmupStarts / ((Date.now() - warmStarted) / 1000);
  const due = dueIn(((timers / rate) * 1.25 + 5) * 1000);
  const seedStarted = Date.now();
  await runConcurrently(timers, seedConcurrency, () => start(due.toISOString()).then(() => undefined));
  const seedSeconds = (Date.now() - seedStarted) / 1000;
  const leadSeconds = (due.getTime() - Date.now()) / 1000;
  if (leadSeconds < 1) throw new Error(`seeding ended ${-leadSeconds} s before due; the run is not valid`);
  const { lateness, load } = await measure(
    watch,
    `process_key = 'wait' AND state = 'completed'`,
    'ended_at',
    timers,
    due,
  );
  return finish('catch', seedSeconds, leadSeconds, lateness, load);
}

async function startScenario(
  call: WorkflowCall,
  orgId: string,
  groupId: string,
  watch: Pool,
): Promise<Result> {
  const models = Math.ceil(timers / startsPerModel);
  // Time one deploy (model compile + arming 100 jobs) to set the due time.
  const warmStarted = Date.now();
  await call('POST', '/api/v1/deployments', {
    org_id: orgId,
    process_group_id: groupId,
    xml: startBpmn('warm', new Date(Date.now() + 86_400_000).toISOString()),
  });
  const perDeploy = Date.now() - warmStarted;
  const due = dueIn(perDeploy * models * 1.5 + 5_000);
  const seedStarted = Date.now();
  await runConcurrently(models, 4, async (i) => {
    await call('POST', '/api/v1/deployments', {
      org_id: orgId,
      process_group_id: groupId,
      xml: startBpmn(`tick${i}`, due.toISOString()),
    });
  });
  const seedSeconds = (Date.now() - seedStarted) / 1000;
  const leadSeconds = (due.getTime() - Date.now()) / 1000;
  if (leadSeconds < 1) throw new Error(`seeding ended ${-leadSeconds} s before due; the run is not valid`);
  const { lateness, load } = await measure(
    watch,
    `process_key LIKE 'tick%' AND state = 'completed'`,
    'started_at',
    models * startsPerModel,
    due,
  );
  return finish('start', seedSeconds, leadSeconds, lateness, load);
}

function finish(
  scenario: string,
  seedSeconds: number,
  leadSeconds: number,
  lateness: number[],
  load: number[],
) {
  return {
    scenario,
    seedSeconds,
    leadSeconds,
    allFiredSeconds: (lateness[lateness.length - 1] ?? NaN) / 1000,
    lateness,
    load,
  };
}

async function runScenario(url: string, scenario: string): Promise<Result> {
  const server: ServerProcess = await startServerProcess(
    fileURLToPath(new URL('./engine-server.ts', import.meta.url)),
    { BENCH_WORKFLOW_URL: url, BENCH_POOL_SIZE: String(poolSize) },
  );
  const watch = createPool(url, { max: 1, applicationName: 'bench-watch' });
  try {
    const call = await workflowClient(`http://127.0.0.1:${server.port}`);
    const org = await call('POST', '/api/v1/orgs', { name: 'Bench', slug: `bench-${scenario}` });
    const group = await call('POST', `/api/v1/orgs/${org.id}/process-groups`, { name: 'bench' });
    const run = scenario === 'start' ? startScenario : catchScenario;
    return await run(call, org.id ?? '', group.id ?? '', watch);
  } finally {
    await watch.end();
    await server.stop();
  }
}

const server = await startBenchServer();
const results: Result[] = [];
try {
  for (const scenario of scenarios) {
    if (scenario !== 'catch' && scenario !== 'start') throw new Error(`unknown scenario '${scenario}'`);
    const url = await server.createDatabase(`weft_bench_timers_${scenario}`);
    await prepareWorkflowBenchDatabase(url);
    results.push(await runScenario(url, scenario));
  }
} finally {
  await server.stop();
}

console.log(
  `\nbench:timers — ${timers} timers due at the same instant, fired by the leader of one service process`,
);
console.log(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, ${server.describe}\n`,
);
for (const result of results) {
  const sorted = result.lateness;
  const ms = (p: number) => `${(percentile(sorted, p) / 1000).toFixed(2)} s`;
  const what = result.scenario === 'catch' ? 'intermediate timer catch' : 'timer start events      ';
  console.log(
    `${what}  all fired ${result.allFiredSeconds.toFixed(2)} s after due   lateness p50 ${ms(50)}  p90 ${ms(90)}  p99 ${ms(99)}  max ${ms(100)}   (${sorted.length} fired; seeded in ${result.seedSeconds.toFixed(1)} s, ${result.leadSeconds.toFixed(1)} s before due; load ${result.load.map((l) => l.toFixed(1)).join(' ')})`,
  );
}
console.log(`\ntarget: all fired within 10 s, p99 lateness under 2 s (2-core machine)`);
