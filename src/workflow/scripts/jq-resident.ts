import { Worker } from 'node:worker_threads';
import {
  allocateResidentMemory,
  Ctl,
  inputCapacity,
  residentMemory,
  State,
  type ResidentMemory,
  type ResidentWorkerData,
} from './jq-resident-protocol.js';
import type { WasmModule } from './jq-wasm-module.js';

/** What jq wrote for one input, as jq-wasm's `raw` reports it (trimmed). */
export interface ResidentAnswer {
  stdout: string;
  stderr: string;
}

/**
 * A jq `main` kept running over one program in a thread of its own, fed one input at a time: jq
 * starts and compiles the program once, instead of once per step. It answers only what a one-input
 * run of the same program would: programs that could tell the difference never get one (see
 * {@link residentEligible}), and anything unusual (jq exiting, an oversized input or output) makes
 * {@link ResidentJq.run} answer null so that the caller runs the input the ordinary way.
 */
export interface ResidentJq {
  /** True once jq has compiled the program and waits for input. */
  readonly ready: boolean;
  /** True once jq has exited or its thread has ended: the runner answers nothing more. */
  readonly dead: boolean;
  /** Resolves when the runner is ready (true) or dead (false). */
  readonly started: Promise<boolean>;
  /** Runs the program over one JSON text without newlines; null when the caller must run it itself. */
  run(json: string): Promise<ResidentAnswer | null>;
  /** Ends the runner's thread. */
  close(): void;
}

// `input`, `inputs`, `input_line_number` and `input_filename` see the stream of inputs, `halt` and
// `halt_error` end jq's main, and `debug` and `stderr` write to stderr, which would then no longer
// mean "this input failed". A program naming any of them anywhere (even in a string) runs the
// ordinary way.
const streamSensitive = /input|halt|debug|stderr/;

/** Whether a program may run in a resident jq. */
export function residentEligible(program: string): boolean {
  return !streamSensitive.test(program);
}

// jq counts input lines over the whole stream; a one-input run reports line 0 (the JSON text is
// passed without a newline).
const runtimeLocation = /^jq: error \(at \/dev\/stdin:\d+\)/gm;

const runningFromSource = import.meta.url.endsWith('.ts');

// As in sandbox.ts: under tsx the worker is the .ts source and needs tsx registered in the thread.
function workerEntry(): URL {
  if (!runningFromSource) return new URL('./jq-resident-worker.js', import.meta.url);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL('./jq-resident-worker.ts', import.meta.url).href);
  const bootstrap = `import { register } from ${tsx};\nregister();\nawait import(${entry});\n`;
  return new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`);
}

type WaitAsync = (
  array: Int32Array,
  index: number,
  value: number,
) => { async: false; value: string } | { async: true; value: Promise<string> };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Starts a resident jq over `program` (compiled jq `module`, jq `flags` before `--`). */
export function startResidentJq(module: WasmModule, program: string, flags: string[]): ResidentJq {
  const buffer = allocateResidentMemory();
  const shared: ResidentMemory = residentMemory(buffer);
  const { control } = shared;
  const data: ResidentWorkerData = { buffer, module, program, flags };
  const worker = new Worker(workerEntry(), {
    workerData: data,
    resourceLimits: { maxOldGenerationSizeMb: 64 },
  });
  let ended = false;
  let busy = false;
  const state = () => Atomics.load(control, Ctl.state);
  const end = () => {
    ended = true;
    Atomics.store(control, Ctl.state, State.exited);
    Atomics.notify(control, Ctl.state);
  };
  worker.on('error', end);
  worker.on('exit', end);

  // A pending Atomics.waitAsync does not keep the event loop alive: the thread does, while awaited.
  const started = (async () => {
    worker.ref();
    try {
      for (;;) {
        const now = state();
        if (now === State.idle) return true;
        if (now === State.exited || ended) return false;
        const waited = waitAsync(control, Ctl.state, now);
        if (waited.async) await waited.value;
      }
    } finally {
      worker.unref();
    }
  })();

  return {
    get ready() {
      return !ended && state() !== State.starting && state() !== State.exited;
    },
    get dead() {
      return ended || state() === State.exited;
    },
    started,
    async run(json) {
      const now = state();
      if (busy || ended || (now !== State.idle && now !== State.done)) return null;
      const bytes = encoder.encode(`${json}\n`);
      if (bytes.length > inputCapacity) return null;
      busy = true;
      worker.ref();
      try {
        shared.input.set(bytes);
        Atomics.store(control, Ctl.inputLength, bytes.length);
        Atomics.store(control, Ctl.state, State.input);
        Atomics.notify(control, Ctl.state);
        const waited = waitAsync(control, Ctl.state, State.input);
        if (waited.async) await waited.value;
        if (state() !== State.done || Atomics.load(control, Ctl.overflow) !== 0) return null;
        const stdout = decoder.decode(shared.stdout.slice(0, Atomics.load(control, Ctl.stdoutLength)));
        const stderr = decoder.decode(shared.stderr.slice(0, Atomics.load(control, Ctl.stderrLength)));
        return {
          stdout: stdout.trim(),
          stderr: stderr.trim().replace(runtimeLocation, 'jq: error (at /dev/stdin:0)'),
        };
      } finally {
        busy = false;
        if (!ended) worker.unref();
      }
    },
    close() {
      end();
      void worker.terminate();
    },
  };
}
