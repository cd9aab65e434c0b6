// Entry point of a script sandbox worker thread: runs one piece of work per message, a pipeline step
// with the in-process executor or JavaScript in QuickJS.
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { javascriptLimitsOf, runJavaScriptTask } from './javascript-run.js';
import type { SandboxReply, SandboxRequest, SandboxWork, SandboxWorkerData } from './sandbox-protocol.js';
import { createInProcessExecutor, threadJqEngine } from './step-executor.js';
import type { StepOutcome } from './types.js';

const port = parentPort;
if (port === null) throw new Error('sandbox-worker.js must run in a worker thread');
const data = workerData as SandboxWorkerData;
const executor = createInProcessExecutor(data.limits);
const javascriptLimits = javascriptLimitsOf(data.limits, data.javascriptTimeoutMs);
const reply = (message: SandboxReply): void => port.postMessage(message);

async function run(work: SandboxWork): Promise<StepOutcome> {
  if (work.kind === 'step') return executor.execute(work.step, work.variables);
  const started = performance.now();
  const result = await runJavaScriptTask(work.task, javascriptLimits);
  return { ...result, durationMs: performance.now() - started };
}

try {
  // Load and run jq once before saying ready, so the first step's time limit does not pay for it.
  await (await threadJqEngine()).run('.', null);
  port.on('message', (request: SandboxRequest) => {
    void run(request.work).then((outcome) => {
      reply({ kind: 'outcome', id: request.id, outcome });
    });
  });
  reply({ kind: 'ready' });
} catch (e) {
  reply({ kind: 'failed', message: e instanceof Error ? e.message : String(e) });
}
