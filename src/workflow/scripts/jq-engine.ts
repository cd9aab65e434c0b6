import { loadJq, type Jq } from 'jq-wasm';
import { residentEligible, startResidentJq, type ResidentJq } from './jq-resident.js';
import { jqWasmModule } from './jq-wasm-module.js';
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
  /** Ends the threads of resident programs (they do not keep the process alive either way). */
  close(): void;
}

/** How a jq engine keeps programs resident (see `jq-resident.ts`). */
export interface JqEngineOptions {
  /** Programs with a resident jq at once, each a thread (~30 MiB); 0 turns them off. Default 4. */
  residentPrograms?: number;
  /** Runs of a program over a JSON value before it gets a resident jq. Default 2. */
  residentAfterRuns?: number;
  /** Wait for a new resident jq to start instead of running the ordinary way meanwhile (tests). */
  awaitResidentStart?: boolean;
}

interface ProgramEntry {
  runs: number;
  resident: ResidentJq | null;
  /** Its resident jq ended (the program does not compile, or jq aborted): never again. */
  unsuitable: boolean;
}

// Programs whose runs are counted; the least recently used are forgotten.
const trackedPrograms = 256;

const compileFailed = 3;
const runtimeFailed = 5;
const runtimePrefix = /^jq: error \(at [^)]*\)( \(not a string\))?: /;
const compilePrefix = /^jq: error: /;
const compileSummary = /\n?jq: \d+ compile errors?$/;

// jq-wasm 3 drives jq's command line: every call starts jq and compiles the program again (~1 ms),
// there is no handle to a compiled program. A program run again and again therefore gets a resident
// jq: one jq `main` left running over it and fed one input at a time. `--` stops a program such as
// "-1" reading as a flag.
const flags = ['-c'];
const residentFlags = ['-c', '--unbuffered'];

/**
 * Loads jq. Each run is one jq command-line run over one input, on one instance re-entered run after
 * run; an instance that aborts (out of its 256 MiB heap) is replaced on the next run. Programs run
 * often over JSON values are answered by resident jqs instead, with the same results.
 */
export async function loadJqEngine(options: JqEngineOptions = {}): Promise<JqEngine> {
  const residentPrograms = Math.max(0, options.residentPrograms ?? 4);
  const residentAfterRuns = Math.max(1, options.residentAfterRuns ?? 2);
  const module = await jqWasmModule();
  let jq: Jq | null = await loadJq({ wasmModule: module });
  const version = jq.version;
  const programs = new Map<string, ProgramEntry>();

  function entryOf(program: string): ProgramEntry {
    const entry = programs.get(program) ?? { runs: 0, resident: null, unsuitable: false };
    programs.delete(program);
    programs.set(program, entry);
    for (const [oldest, old] of programs) {
      if (programs.size <= trackedPrograms) break;
      old.resident?.close();
      programs.delete(oldest);
    }
    return entry;
  }

  function makeRoom(): void {
    const live = [...programs.values()].filter((entry) => entry.resident !== null);
    for (const entry of live.slice(0, Math.max(0, live.length - residentPrograms + 1))) {
      entry.resident?.close();
      entry.resident = null;
    }
  }

  async function runResident(program: string, input: JsonValue): Promise<JqRunResult | null> {
    const entry = entryOf(program);
    entry.runs++;
    if (entry.resident?.dead) {
      entry.resident = null;
      entry.unsuitable = true;
    }
    if (entry.resident === null && !entry.unsuitable && entry.runs >= residentAfterRuns) {
      makeRoom();
      entry.resident = startResidentJq(module, program, residentFlags);
      if (options.awaitResidentStart) await entry.resident.started;
    }
    if (!entry.resident?.ready) return null;
    const json = JSON.stringify(input) as string | undefined;
    if (json === undefined) return null;
    const answer = await entry.resident.run(json);
    if (answer === null) return null;
    const exitCode = answer.stderr === '' ? 0 : runtimeFailed;
    return interpret({ ...answer, exitCode });
  }

  return {
    version,
    async run(program, input) {
      if (residentPrograms > 0 && typeof input !== 'string' && residentEligible(program)) {
        const answered = await runResident(program, input);
        if (answered !== null) return answered;
      }
      jq ??= await loadJq({ wasmModule: module });
      let result;
      try {
        result = jq.raw(input, program, [...flags, '--']);
      } catch (e) {
        jq = null;
        const reason = e instanceof Error ? e.message : String(e);
        return runtimeError(`jq aborted (out of memory or internal error): ${reason}`, [], reason);
      }
      return interpret(result);
    },
    close() {
      for (const entry of programs.values()) entry.resident?.close();
      programs.clear();
    },
  };
}

function interpret(result: { stdout: string; stderr: string; exitCode: number }): JqRunResult {
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
