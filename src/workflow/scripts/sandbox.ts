import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { runPipeline, type RunPipelineOptions } from './pipeline.js';
import type { JavaScriptTask } from './javascript-engine.js';
import type { SandboxReply, SandboxRequest, SandboxWork, SandboxWorkerData } from './sandbox-protocol.js';
import type { ScriptLimits, StepExecutor } from './step-executor.js';
import type { PipelineResult, ScriptStepInput, StepOutcome, Variables } from './types.js';

/** How the script sandbox is sized and bounded. */
export interface ScriptSandboxOptions {
  /** Worker threads running steps in parallel; default 2. */
  poolSize?: number;
  /**
   * Wall-clock limit of one step, after which its worker is terminated and replaced; default 2000.
   * A JavaScript script is interrupted by its interpreter at this limit, and its worker terminated
   * only if that has not ended it a second later.
   */
  stepTimeoutMs?: number;
  /** V8 old-generation heap of each worker in MiB; default 256 (jq's own heap is capped at 256 MiB). */
  maxHeapMb?: number;
  /** Script limits applied inside the workers. */
  limits?: ScriptLimits;
}

/** A pool of worker threads that runs steps with a wall-clock limit, keeping the main event loop free. */
export interface ScriptSandbox extends StepExecutor {
  /** Validates and runs a pipeline in the sandbox (see {@link runPipeline}). */
  run(
    steps: readonly ScriptStepInput[],
    variables: Variables,
    options?: Omit<RunPipelineOptions, 'executor' | 'limits'>,
  ): Promise<PipelineResult>;
  /** Runs a script task's JavaScript in a worker (QuickJS, within the JavaScript limits). */
  runJavaScript(task: JavaScriptTask): Promise<StepOutcome>;
  /** Starts every worker and resolves once they have loaded their languages. */
  ready(): Promise<void>;
  /** Terminates the workers; steps still queued or running end with an error. */
  close(): Promise<void>;
}

interface Task {
  work: SandboxWork;
  resolve: (outcome: StepOutcome) => void;
}

interface Running {
  id: number;
  task: Task;
  timer: NodeJS.Timeout;
  started: number;
}

interface Slot {
  worker: Worker;
  state: 'starting' | 'idle' | 'busy' | 'dead';
  running: Running | null;
  started: Promise<void>;
  markStarted: () => void;
}

// QuickJS's interrupt handler ends a script at the step timeout; the worker is terminated only when
// that has not happened this much later (the interpreter stuck outside the script's own code).
const JAVASCRIPT_GRACE_MS = 1000;

const runningFromSource = import.meta.url.endsWith('.ts');

// After `tsc` the worker is the .js file next to this one in dist/. Under tsx (tests, `npm run dev`)
// it is the .ts source, and on Node 20 `execArgv: ['--import', 'tsx']` does not reach a worker's entry
// module, so a fixed two-line bootstrap module registers tsx in the worker and then imports it.
function workerEntry(): URL {
  if (!runningFromSource) return new URL('./sandbox-worker.js', import.meta.url);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL('./sandbox-worker.ts', import.meta.url).href);
  const bootstrap = `import { register } from ${tsx};\nregister();\nawait import(${entry});\n`;
  return new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`);
}

function failure(message: string, durationMs: number): StepOutcome {
  return { status: 'error', error: { message, line: null, column: null }, durationMs };
}

/** Creates a script sandbox; workers start on first use (or on {@link ScriptSandbox.ready}). */
export function createScriptSandbox(options: ScriptSandboxOptions = {}): ScriptSandbox {
  const poolSize = Math.max(1, options.poolSize ?? 2);
  const stepTimeoutMs = options.stepTimeoutMs ?? 2000;
  const workerData: SandboxWorkerData = { limits: options.limits ?? {}, javascriptTimeoutMs: stepTimeoutMs };
  const entry = workerEntry();
  const slots: Slot[] = [];
  const queue: Task[] = [];
  let nextId = 1;
  let closed = false;
  let startError: string | null = null;

  function spawn(): Slot {
    const worker = new Worker(entry, {
      workerData,
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 256, maxYoungGenerationSizeMb: 32 },
    });
    let markStarted = (): void => {};
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    const slot: Slot = { worker, state: 'starting', running: null, started, markStarted };
    worker.on('message', (reply: SandboxReply) => onReply(slot, reply));
    worker.on('error', (error: Error & { code?: string }) => {
      const message =
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? 'script exceeded the sandbox memory limit'
          : `script sandbox worker failed: ${error.message}`;
      retire(slot, message);
    });
    worker.on('exit', (code) => retire(slot, `script sandbox worker exited with code ${code}`));
    slots.push(slot);
    return slot;
  }

  function onReply(slot: Slot, reply: SandboxReply): void {
    if (slot.state === 'dead') return;
    if (reply.kind === 'ready') {
      slot.state = 'idle';
      // An idle worker must not keep the process alive; a starting or busy one must, while awaited.
      slot.worker.unref();
      slot.markStarted();
      dispatch();
    } else if (reply.kind === 'failed') {
      retire(slot, `script sandbox could not start: ${reply.message}`);
    } else if (slot.running?.id === reply.id) {
      const { task, timer } = slot.running;
      clearTimeout(timer);
      slot.running = null;
      slot.state = 'idle';
      slot.worker.unref();
      task.resolve(reply.outcome);
      dispatch();
    }
  }

  // Ends a worker: its running step fails with `message`; a worker that never started fails the
  // queue when no other worker is left to take it, so a broken install cannot hang callers.
  function retire(slot: Slot, message: string): void {
    if (slot.state === 'dead') return;
    const wasStarting = slot.state === 'starting';
    slot.state = 'dead';
    slot.markStarted();
    slots.splice(slots.indexOf(slot), 1);
    void slot.worker.terminate();
    if (slot.running) {
      clearTimeout(slot.running.timer);
      slot.running.task.resolve(failure(message, performance.now() - slot.running.started));
      slot.running = null;
    }
    if (wasStarting) startError = message;
    if (wasStarting && slots.length === 0) {
      for (const task of queue.splice(0)) task.resolve(failure(message, 0));
      return;
    }
    if (!closed && !wasStarting) spawn();
    dispatch();
  }

  function onTimeout(slot: Slot): void {
    const running = slot.running;
    if (running === null) return;
    const work = running.task.work;
    const limit =
      work.kind === 'step'
        ? `${work.step.type} step exceeded the time limit of ${stepTimeoutMs} ms`
        : `javascript script exceeded the time limit of ${stepTimeoutMs} ms`;
    retire(slot, limit);
  }

  function dispatch(): void {
    while (queue.length > 0) {
      const slot = slots.find((s) => s.state === 'idle');
      if (slot === undefined) break;
      assign(slot, queue.shift() as Task);
    }
    const starting = slots.filter((s) => s.state === 'starting').length;
    for (let i = starting; !closed && i < queue.length && slots.length < poolSize; i++) spawn();
  }

  function assign(slot: Slot, task: Task): void {
    const id = nextId++;
    slot.state = 'busy';
    slot.worker.ref();
    const timeoutMs = task.work.kind === 'javascript' ? stepTimeoutMs + JAVASCRIPT_GRACE_MS : stepTimeoutMs;
    const timer = setTimeout(() => onTimeout(slot), timeoutMs);
    slot.running = { id, task, timer, started: performance.now() };
    const request: SandboxRequest = { id, work: task.work };
    try {
      slot.worker.postMessage(request);
    } catch (e) {
      retire(slot, `step could not be sent to the sandbox: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  function enqueue(work: SandboxWork): Promise<StepOutcome> {
    if (closed) return Promise.resolve(failure('script sandbox is closed', 0));
    return new Promise<StepOutcome>((resolve) => {
      queue.push({ work, resolve });
      dispatch();
    });
  }

  const sandbox: ScriptSandbox = {
    execute: (step, variables) => enqueue({ kind: 'step', step, variables }),
    runJavaScript: (task) => enqueue({ kind: 'javascript', task }),
    run(steps, variables, runOptions = {}) {
      return runPipeline(steps, variables, { ...runOptions, executor: sandbox });
    },
    async ready() {
      while (!closed && slots.length < poolSize) spawn();
      await Promise.all(slots.map((s) => s.started));
      if (!slots.some((s) => s.state === 'idle' || s.state === 'busy')) {
        throw new Error(startError ?? 'script sandbox is closed');
      }
    },
    async close() {
      closed = true;
      const all = [...slots];
      for (const slot of all) retire(slot, 'script sandbox is closed');
      for (const task of queue.splice(0)) task.resolve(failure('script sandbox is closed', 0));
      await Promise.all(all.map((s) => s.worker.terminate()));
    },
  };
  return sandbox;
}
