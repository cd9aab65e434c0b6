/**
 * The built CLI (`dist/cli.js`, which `npm test` builds) as a child process with its own
 * environment, for tests that need real processes: several starts on one data dir, faults.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Path of the built CLI. */
export const builtCli = fileURLToPath(new URL('../../../dist/cli.js', import.meta.url));

/** A running CLI command and everything it has printed so far (stdout and stderr). */
export interface CliProcess {
  child: ChildProcess;
  output: () => string;
}

/** Spawns `weft <args>` with only PATH and HOME from this process's environment. */
export function spawnCli(args: string[], env: Record<string, string>): CliProcess {
  let output = '';
  const child = spawn(process.execPath, [builtCli, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

/** Spawns `weft start` and resolves once both services listen (rejects if it exits first). */
export async function startCli(env: Record<string, string>): Promise<CliProcess> {
  const started = spawnCli(['start'], env);
  const deadline = Date.now() + 90_000;
  while (!started.output().includes('records listening')) {
    if (started.child.exitCode !== null)
      throw new Error(`weft start exited with ${started.child.exitCode}:\n${started.output()}`);
    if (Date.now() > deadline) throw new Error(`weft start did not come up in time:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return started;
}

/** Resolves with the exit code once the process has exited, or undefined after `timeoutMs`. */
export function exitOf(child: ChildProcess, timeoutMs: number): Promise<number | null | undefined> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    const timer = setTimeout(() => resolve(undefined), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** SIGTERM, then the exit code. */
export function stopCli(child: ChildProcess): Promise<number | null | undefined> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  return exitOf(child, 60_000);
}
