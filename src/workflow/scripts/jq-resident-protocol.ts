import type { WasmModule } from './jq-wasm-module.js';

/**
 * How a resident jq runner (see `jq-resident.ts`) and its owner share one SharedArrayBuffer: a few
 * 32-bit control words, then the input, stdout and stderr regions.
 */

/** Index of each control word. */
export const Ctl = {
  /** One of {@link State}. */
  state: 0,
  /** Bytes of the input (its JSON text and a newline). */
  inputLength: 1,
  /** Bytes jq wrote to stdout for the input. */
  stdoutLength: 2,
  /** Bytes jq wrote to stderr for the input. */
  stderrLength: 3,
  /** 1 when stdout or stderr did not fit its region (the answer is then not used). */
  overflow: 4,
} as const;

/** The runner's state, in `Ctl.state`. */
export const State = {
  /** jq is starting and compiling the program. */
  starting: 0,
  /** jq is waiting for the next input. */
  idle: 1,
  /** The owner wrote an input; jq is running the program over it. */
  input: 2,
  /** jq ran the program over the input and is waiting for the next: the outputs are ready. */
  done: 3,
  /** jq's main has returned or aborted; the runner answers nothing more. */
  exited: 4,
} as const;

const controlBytes = 32;
/** Largest input (JSON text and newline) a runner takes; a larger one runs the ordinary way. */
export const inputCapacity = 1 << 20;
/** Largest stdout of one input; over it the answer is not used and the input runs the ordinary way. */
export const stdoutCapacity = 1 << 20;
/** Largest stderr of one input, likewise. */
export const stderrCapacity = 1 << 16;

/** The views of one runner's shared memory. */
export interface ResidentMemory {
  control: Int32Array;
  input: Uint8Array;
  stdout: Uint8Array;
  stderr: Uint8Array;
}

/** Allocates a runner's shared memory. */
export function allocateResidentMemory(): SharedArrayBuffer {
  return new SharedArrayBuffer(controlBytes + inputCapacity + stdoutCapacity + stderrCapacity);
}

/** The views of a runner's shared memory. */
export function residentMemory(buffer: SharedArrayBuffer): ResidentMemory {
  let at = controlBytes;
  const region = (size: number) => {
    const view = new Uint8Array(buffer, at, size);
    at += size;
    return view;
  };
  return {
    control: new Int32Array(buffer, 0, controlBytes / 4),
    input: region(inputCapacity),
    stdout: region(stdoutCapacity),
    stderr: region(stderrCapacity),
  };
}

/** What the owner gives a runner thread. */
export interface ResidentWorkerData {
  buffer: SharedArrayBuffer;
  module: WasmModule;
  program: string;
  /** jq's command-line flags, before `--` and the program. */
  flags: string[];
}
