import { loadJq, type Jq } from 'jq-wasm';
import { jqErrorPosition } from './source-position.js';
import type { JsonValue, StepError } from './types.js';

/** What one jq run produced: every output value, or an error (with the outputs emitted before it). */
export type JqRunResult =
  | { ok: true; outputs: JsonValue[] }
  | { ok: false; phase: 'compile' | 'runtime'; error: StepError; outputs: JsonValue[]; stderr: string };

/** A loaded jq (jq 1.8 in WebAssembly). */
export interface JqEngine {
  /** Runs `program` over `input` (a JSON value, or JSON text passed to jq untouched). */
  run(program: string, input: JsonValue | string): Promise<JqRunResult>;
  /** The jq version string, e.g. "jq-1.8.2". */
  readonly version: string;
}

const compileFailed = 3;
const runtimePrefix = /^jq: error \(at [^)]*\)( \(not a string\))?: /;
const compilePrefix = /^jq: error: /;
const compileSummary = /\n?jq: \d+ compile errors?$/;

// jq-wasm 3 drives jq's command line: every call parses and compiles the program again, there is
// no handle to a compiled program to reuse. `--` stops a program such as "-1" reading as a flag.
const flags = ['-c', '--'];

/** Loads jq; an instance that aborts (out of its 256 MiB heap) is replaced on the next run. */
export async function loadJqEngine(): Promise<JqEngine> {
  let jq: Jq | null = await loadJq();
  const version = jq.version;
  return {
    version,
    async run(program, input) {
      jq ??= await loadJq();
      let result;
      try {
        result = jq.raw(input, program, flags);
      } catch (e) {
        jq = null;
        const reason = e instanceof Error ? e.message : String(e);
        return runtimeError(`jq aborted (out of memory or internal error): ${reason}`, [], reason);
      }
      let outputs: JsonValue[];
      try {
        outputs = parseOutputs(result.stdout);
      } catch {
        return runtimeError('jq produced output that is not JSON', [], result.stderr);
      }
      if (result.exitCode === compileFailed) return compileError(result.stderr);
      if (result.exitCode !== 0 && result.stderr !== '') {
        return runtimeError(runtimeMessage(result.stderr), outputs, result.stderr);
      }
      return { ok: true, outputs };
    },
  };
}

function parseOutputs(stdout: string): JsonValue[] {
  if (stdout === '') return [];
  return stdout.split('\n').map((line) => JSON.parse(line) as JsonValue);
}

// "jq: error (at /dev/stdin:0) (not a string): {"a":1}" → "{"a":1} (not a string)"
function runtimeMessage(stderr: string): string {
  const prefix = runtimePrefix.exec(stderr);
  if (!prefix) return stderr;
  const message = stderr.slice(prefix[0].length);
  return prefix[1] === undefined ? message : `${message} (not a string)`;
}

function runtimeError(message: string, outputs: JsonValue[], stderr: string): JqRunResult {
  return { ok: false, phase: 'runtime', error: { message, line: null, column: null }, outputs, stderr };
}

function compileError(stderr: string): JqRunResult {
  const position = jqErrorPosition(stderr);
  const firstLine = stderr.replace(compileSummary, '').split('\n')[0] ?? stderr;
  return {
    ok: false,
    phase: 'compile',
    error: {
      message: firstLine.replace(compilePrefix, ''),
      line: position?.line ?? null,
      column: position?.column ?? null,
    },
    outputs: [],
    stderr,
  };
}
