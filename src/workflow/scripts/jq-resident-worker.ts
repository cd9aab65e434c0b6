// Entry point of a resident jq runner thread: one jq `main` over one program, fed input after input.
import { workerData } from 'node:worker_threads';
import { loadJq } from 'jq-wasm';
import { Ctl, residentMemory, State, type ResidentWorkerData } from './jq-resident-protocol.js';
import { wasm, type WasmMemory } from './jq-wasm-module.js';

type Syscall = (...args: number[]) => number;

const data = workerData as ResidentWorkerData;
const shared = residentMemory(data.buffer);
const { control } = shared;
const decoder = new TextDecoder();

let memory: WasmMemory | null = null;
let stdinFd = -1;
let inputAt = 0;
let inputEnd = 0;
let serving = false;
let stdoutLength = 0;
let stderrLength = 0;

const heap = (): Uint8Array => new Uint8Array((memory as WasmMemory).buffer);
const view = (): DataView => new DataView((memory as WasmMemory).buffer);

function publish(state: number): void {
  Atomics.store(control, Ctl.stdoutLength, stdoutLength);
  Atomics.store(control, Ctl.stderrLength, stderrLength);
  Atomics.store(control, Ctl.state, state);
  Atomics.notify(control, Ctl.state);
}

// jq asks for more of its input only once every value before has gone through the program and, with
// --unbuffered, every output has been written: that is when the answer for the last input is complete.
function nextInput(): void {
  publish(serving ? State.done : State.idle);
  serving = true;
  for (;;) {
    const state = Atomics.load(control, Ctl.state);
    if (state === State.input) break;
    Atomics.wait(control, Ctl.state, state);
  }
  inputAt = 0;
  inputEnd = Atomics.load(control, Ctl.inputLength);
  stdoutLength = 0;
  stderrLength = 0;
  Atomics.store(control, Ctl.overflow, 0);
}

// WASI fd_read(fd, iovs, iovs_len, nread) on jq's input: copies the owner's input, never ends it.
function readInput(iovs: number, count: number, nread: number): number {
  if (inputAt >= inputEnd) nextInput();
  const target = heap();
  const vectors = view();
  let read = 0;
  for (let i = 0; i < count && inputAt < inputEnd; i++) {
    const pointer = vectors.getUint32(iovs + i * 8, true);
    const length = vectors.getUint32(iovs + i * 8 + 4, true);
    const n = Math.min(length, inputEnd - inputAt);
    target.set(shared.input.subarray(inputAt, inputAt + n), pointer);
    inputAt += n;
    read += n;
  }
  vectors.setUint32(nread, read, true);
  return 0;
}

// WASI fd_write(fd, iovs, iovs_len, nwritten) on stdout and stderr: appends to the shared regions.
function writeOutput(fd: number, iovs: number, count: number, nwritten: number): number {
  const source = heap();
  const vectors = view();
  let written = 0;
  for (let i = 0; i < count; i++) {
    const pointer = vectors.getUint32(iovs + i * 8, true);
    const length = vectors.getUint32(iovs + i * 8 + 4, true);
    const region = fd === 1 ? shared.stdout : shared.stderr;
    const at = fd === 1 ? stdoutLength : stderrLength;
    if (at + length > region.length) Atomics.store(control, Ctl.overflow, 1);
    else region.set(source.subarray(pointer, pointer + length), at);
    if (fd === 1) stdoutLength += length;
    else stderrLength += length;
    written += length;
  }
  vectors.setUint32(nwritten, written, true);
  return 0;
}

function cString(pointer: number): string {
  const bytes = heap();
  let end = pointer;
  while (bytes[end] !== 0) end++;
  return decoder.decode(bytes.subarray(pointer, end));
}

try {
  const jq = await loadJq({
    // jq-wasm's Emscripten imports are minified: f = openat, h = fd_read, d = fd_write, checked by
    // the glue's function names. The input is the "/dev/stdin" jq-wasm puts last on the command line.
    instantiateWasm(imports, onSuccess) {
      const env = (imports as unknown as { a: Record<string, Syscall> }).a;
      const { f: openat, h: fdRead, d: fdWrite } = env;
      if (
        openat?.name !== '___syscall_openat' ||
        fdRead?.name !== '_fd_read' ||
        fdWrite?.name !== '_fd_write'
      ) {
        throw new Error('jq-wasm imports are not the expected openat, fd_read and fd_write');
      }
      const wrapped: Record<string, Syscall> = {
        ...env,
        f: (dirfd, path, flags, varargs) => {
          const fd = openat(dirfd, path, flags, varargs);
          if (cString(path) === '/dev/stdin') stdinFd = fd;
          return fd;
        },
        h: (fd, iovs, count, nread) =>
          fd === stdinFd ? readInput(iovs, count, nread) : fdRead(fd, iovs, count, nread),
        d: (fd, iovs, count, nwritten) =>
          fd === 1 || fd === 2 ? writeOutput(fd, iovs, count, nwritten) : fdWrite(fd, iovs, count, nwritten),
      };
      void wasm
        .instantiate(data.module, { ...(imports as unknown as object), a: wrapped })
        .then((instance) => {
          memory = Object.values(instance.exports).find((e) => e instanceof wasm.Memory) ?? null;
          onSuccess(instance, data.module);
        });
    },
  });
  jq.raw('', data.program, [...data.flags, '--']);
} finally {
  publish(State.exited);
}
