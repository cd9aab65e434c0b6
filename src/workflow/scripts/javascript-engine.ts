import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  shouldInterruptAfterDeadline,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { javascriptPrelude } from './javascript-prelude.js';
import { isJsonObject } from './json-value.js';
import { stepError, type StepRun } from './step-run.js';
import type { JsonValue, Variables } from './types.js';

/** What `execution` answers about where a script runs, besides the variables. */
export interface JavaScriptExecution {
  processInstanceId: string;
  processBusinessKey: string | null;
  processDefinitionId: string | null;
  /**
   * The script task's id (`execution.getCurrentActivityId()`); for an execution listener its flow
   * node's or flow's, null for the process's own.
   */
  activityId: string | null;
  /** The token's id (`execution.getId()`). */
  executionId: string;
  /** The event an execution listener runs for (`execution.getEventName()`); absent elsewhere (null). */
  eventName?: string;
}

/** One JavaScript script to run over process variables. */
export interface JavaScriptTask {
  source: string;
  variables: Variables;
  execution: JavaScriptExecution;
  /** Where the value of the script's last expression is stored; null stores it nowhere. */
  resultVariable: string | null;
  /**
   * The user task a task listener runs for (`task.…`); the run's output is then the task as the
   * script left it (`{ assignee }`).
   */
  task?: JavaScriptUserTask;
}

/** What `task` answers in a task listener. */
export interface JavaScriptUserTask {
  id: string;
  name: string | null;
  taskDefinitionKey: string;
  assignee: string | null;
  eventName: string;
}

/** Bounds of one JavaScript run. */
export interface JavaScriptLimits {
  /** Time the interpreter may run before its interrupt handler stops it, in ms. */
  timeoutMs: number;
  /**
   * Bytes the interpreter may allocate (its own heap, not V8's); its WebAssembly memory is capped
   * 16 MiB above this.
   */
  memoryLimitBytes: number;
  /** Bytes of the interpreter's stack: deep recursion fails before the host stack does. */
  maxStackBytes: number;
  /** Bytes of the JSON text of the variables set and the result together. */
  maxOutputBytes: number;
}

/** Defaults for {@link JavaScriptLimits} (the time limit comes from the sandbox's step timeout). */
export const defaultJavaScriptLimits: Readonly<Omit<JavaScriptLimits, 'timeoutMs'>> = Object.freeze({
  memoryLimitBytes: 64 * 1024 * 1024,
  maxStackBytes: 256 * 1024,
  maxOutputBytes: 1024 * 1024,
});

/** Runs JavaScript scripts in a QuickJS interpreter compiled to WebAssembly. */
export interface JavaScriptEngine {
  /** Runs one script in a fresh runtime; every failure is an error run, never a rejection. */
  run(task: JavaScriptTask, limits: JavaScriptLimits): Promise<StepRun>;
}

// The release build without asyncify: scripts are synchronous, and it is the smallest and fastest.
// The import may come typed as the CommonJS module and be the ES one: either default is unwrapped.
async function releaseVariant(): Promise<QuickJSSyncVariant> {
  const imported: unknown = await import('@jitl/quickjs-wasmfile-release-sync');
  let variant = (imported as { default: unknown }).default;
  if (typeof variant === 'object' && variant !== null && 'default' in variant) variant = variant.default;
  return variant as QuickJSSyncVariant;
}

// TypeScript's ES2023 lib does not declare the WebAssembly JS API: the one constructor used, typed here.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
const WasmMemory = (
  globalThis as unknown as {
    WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory };
  }
).WebAssembly.Memory;

const MIB = 1024 * 1024;
const WASM_PAGE = 65_536;
/** What the WebAssembly module needs besides the scripts' heap (its data, stack and runtime). */
const WASM_BASE_BYTES = 16 * MIB;

// QuickJS's own memory limit does not count large strings and typed arrays in this build (its
// allocator reports no usable sizes), so the WebAssembly memory itself is capped as well: at the
// limit plus what the module needs, after which its allocator fails and QuickJS throws
// "out of memory". Each engine runs one script at a time, so the cap bounds one script.
async function loadModule(memoryLimitBytes: number): Promise<QuickJSWASMModule> {
  const maximum = Math.ceil((WASM_BASE_BYTES + memoryLimitBytes) / WASM_PAGE);
  const wasmMemory = new WasmMemory({ initial: WASM_BASE_BYTES / WASM_PAGE, maximum });
  return newQuickJSWASMModuleFromVariant(newVariant(await releaseVariant(), { wasmMemory }));
}

const scriptFile = 'script.js';
const preludeFile = 'weft-prelude.js';
const positionPattern = new RegExp(`${scriptFile.replace('.', '\\.')}:(\\d+):(\\d+)`);

interface Failure {
  name: string | null;
  message: string;
  line: number | null;
  column: number | null;
}

/**
 * Loads QuickJS's WebAssembly module (shipped inside the npm package) and returns an engine on it:
 * one module per memory limit, made on first use.
 */
export async function loadJavaScriptEngine(): Promise<JavaScriptEngine> {
  const modules = new Map<number, Promise<QuickJSWASMModule>>();
  const moduleFor = (memoryLimitBytes: number): Promise<QuickJSWASMModule> => {
    let module = modules.get(memoryLimitBytes);
    if (module === undefined) {
      module = loadModule(memoryLimitBytes);
      modules.set(memoryLimitBytes, module);
      module.catch(() => modules.delete(memoryLimitBytes));
    }
    return module;
  };
  await moduleFor(defaultJavaScriptLimits.memoryLimitBytes);
  return {
    async run(task, limits) {
      const module = await moduleFor(limits.memoryLimitBytes);
      try {
        return runIn(module, task, limits);
      } catch (e) {
        // An exception out of the wasm itself, not the script's (the host stack overflowed inside
        // it): the module's state is unknown, so the next run gets a new one.
        modules.delete(limits.memoryLimitBytes);
        const why = e instanceof RangeError ? ' (the script recursed too deeply)' : '';
        return stepError(`the JavaScript engine failed${why}: ${e instanceof Error ? e.message : String(e)}`);
      }
    },
  };
}

function runIn(module: QuickJSWASMModule, task: JavaScriptTask, limits: JavaScriptLimits): StepRun {
  const runtime = module.newRuntime();
  try {
    runtime.setMemoryLimit(limits.memoryLimitBytes);
    runtime.setMaxStackSize(limits.maxStackBytes);
    runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + limits.timeoutMs));
    const context = runtime.newContext();
    try {
      return runInContext(runtime, context, task, limits);
    } finally {
      context.dispose();
    }
  } finally {
    runtime.dispose();
  }
}

function runInContext(
  runtime: QuickJSRuntime,
  context: QuickJSContext,
  task: JavaScriptTask,
  limits: JavaScriptLimits,
): StepRun {
  const input = JSON.stringify({
    variables: task.variables,
    execution: task.execution,
    ...(task.task === undefined ? {} : { task: task.task }),
  });
  if (Buffer.byteLength(input) > limits.memoryLimitBytes / 4) {
    return stepError(
      `the process variables come to ${Buffer.byteLength(input)} bytes of JSON, over a quarter of the script memory limit (${limits.memoryLimitBytes} bytes)`,
    );
  }
  const prelude = context.evalCode(javascriptPrelude, preludeFile);
  if (prelude.error) return failed(runtime, context, prelude.error, limits);
  let finish: QuickJSHandle;
  {
    const inputHandle = context.newString(input);
    const started = context.callFunction(prelude.value, context.undefined, inputHandle);
    inputHandle.dispose();
    prelude.value.dispose();
    if (started.error) return failed(runtime, context, started.error, limits);
    finish = started.value;
  }
  try {
    const evaluated = context.evalCode(task.source, scriptFile);
    if (evaluated.error) return failed(runtime, context, evaluated.error, limits);
    const jobs = runtime.executePendingJobs();
    if (jobs.error) {
      evaluated.value.dispose();
      return failed(runtime, context, jobs.error, limits);
    }
    const withResult = task.resultVariable === null ? context.false : context.true;
    const finished = context.callFunction(finish, context.undefined, evaluated.value, withResult);
    evaluated.value.dispose();
    if (finished.error) return failed(runtime, context, finished.error, limits);
    const text = context.getString(finished.value);
    finished.value.dispose();
    return outputOf(text, task, limits);
  } finally {
    finish.dispose();
  }
}

function outputOf(text: string, task: JavaScriptTask, limits: JavaScriptLimits): StepRun {
  const bytes = Buffer.byteLength(text);
  if (bytes > limits.maxOutputBytes) {
    return stepError(
      `the variables the script set and its result come to ${bytes} bytes of JSON, over the limit of ${limits.maxOutputBytes}`,
    );
  }
  // JSON.parse defines every key as an own property, so a variable named __proto__ stays data.
  const parsed = JSON.parse(text) as { changes: Variables; result: JsonValue; task?: JsonValue };
  const changes = isJsonObject(parsed.changes) ? parsed.changes : {};
  if (task.resultVariable !== null) {
    Object.defineProperty(changes, task.resultVariable, {
      value: parsed.result,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { status: 'ok', output: task.task === undefined ? parsed.result : (parsed.task ?? null), changes };
}

// Reads what the script threw. Reading may run the script's code again (a getter on the error), so
// it gets a short deadline of its own and room above the memory limit the script may have hit.
function failed(
  runtime: QuickJSRuntime,
  context: QuickJSContext,
  error: QuickJSHandle,
  limits: JavaScriptLimits,
): StepRun {
  runtime.setMemoryLimit(limits.memoryLimitBytes + 4 * 1024 * 1024);
  runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + 100));
  let failure: Failure;
  try {
    failure = describe(context.dump(error));
  } catch {
    failure = {
      name: null,
      message: 'the script threw a value that cannot be read',
      line: null,
      column: null,
    };
  } finally {
    error.dispose();
  }
  return stepError(messageOf(failure, limits), failure.line, failure.column);
}

function describe(thrown: unknown): Failure {
  if (typeof thrown !== 'object' || thrown === null) {
    return { name: null, message: `the script threw ${textOf(thrown)}`, line: null, column: null };
  }
  const record = thrown as Record<string, unknown>;
  const name = typeof record.name === 'string' ? record.name : null;
  const message = typeof record.message === 'string' ? record.message : `the script threw ${textOf(thrown)}`;
  const match = typeof record.stack === 'string' ? positionPattern.exec(record.stack) : null;
  // A syntax error names its place in `fileName`/`lineNumber`, not always in the stack.
  const line = match ? Number(match[1]) : typeof record.lineNumber === 'number' ? record.lineNumber : null;
  const column = match ? Number(match[2]) : null;
  const inScript = match !== null || record.fileName === scriptFile;
  return { name, message, line: inScript ? line : null, column: inScript ? column : null };
}

function textOf(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return String(value);
    return text.length > 500 ? `${text.slice(0, 500)}…` : text;
  } catch {
    return String(value);
  }
}

function messageOf(failure: Failure, limits: JavaScriptLimits): string {
  if (failure.name === 'InternalError') {
    if (failure.message === 'interrupted') {
      return `javascript script exceeded the time limit of ${limits.timeoutMs} ms`;
    }
    if (failure.message === 'out of memory') {
      return `javascript script exceeded the memory limit of ${Math.round(limits.memoryLimitBytes / MIB)} MiB`;
    }
    if (failure.message === 'stack overflow') {
      return 'javascript script exceeded the stack limit (it recursed too deeply)';
    }
  }
  return failure.name === null ? failure.message : `${failure.name}: ${failure.message}`;
}
