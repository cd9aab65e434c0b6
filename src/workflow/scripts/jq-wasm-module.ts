import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

// TypeScript's ES2023 lib and this @types/node do not declare the WebAssembly JS API: the few parts
// jq needs, typed here.

/** A compiled WebAssembly module (opaque here). */
export interface WasmModule {
  readonly [Symbol.toStringTag]: string;
}

/** An instantiated WebAssembly module. */
export interface WasmInstance {
  readonly exports: Record<string, unknown>;
}

/** A WebAssembly linear memory. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  instantiate(module: WasmModule, imports: Record<string, unknown>): Promise<WasmInstance>;
  Memory: abstract new (...args: never[]) => WasmMemory;
}

/** The global `WebAssembly` object, typed with {@link WasmApi}. */
export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

const require = createRequire(import.meta.url);
let compiled: Promise<WasmModule> | null = null;

/**
 * jq's WebAssembly module (from the pinned `jq-wasm`), read and compiled once per thread: a new jq
 * instance (`loadJq({ wasmModule })`) then costs only its instantiation, and the module can be sent
 * to another thread without compiling it again.
 */
export function jqWasmModule(): Promise<WasmModule> {
  compiled ??= readFile(require.resolve('jq-wasm/jq.wasm'))
    .then((bytes) => wasm.compile(bytes))
    .catch((e: unknown) => {
      compiled = null;
      throw e;
    });
  return compiled;
}
