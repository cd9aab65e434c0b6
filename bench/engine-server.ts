/** The workflow service measured by bench/engine.ts, in its own process. */
import { serveWorkflowForBenchmark } from './support/workflow-server.js';

await serveWorkflowForBenchmark(
  process.env.BENCH_WORKFLOW_URL ?? '',
  Number(process.env.BENCH_POOL_SIZE ?? '10'),
);
