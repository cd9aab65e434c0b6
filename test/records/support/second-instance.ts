import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../helpers/ports.js';

const child = fileURLToPath(new URL('./records-process.ts', import.meta.url));
const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url));

/** A records service in its own process (see records-process.ts), and how to stop it. */
export interface SecondInstance {
  base: string;
  /** Everything it printed (it logs nothing at level silent; startup failures land here). */
  output(): string;
  stop(): Promise<void>;
}

/** Starts another instance on `databaseUrl` with `env` (e.g. the same REDIS_URL and resources folder). */
export async function startSecondInstance(
  databaseUrl: string,
  env: Record<string, string>,
): Promise<SecondInstance> {
  const port = await freePort();
  const process_: ChildProcess = spawn(tsx, [child], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      RECORDS_DATABASE_URL: databaseUrl,
      RECORDS_PORT: String(port),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  process_.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  process_.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 90_000;
  while (!output.includes('ready')) {
    if (process_.exitCode !== null) throw new Error(`the second instance exited:\n${output}`);
    if (Date.now() > deadline) {
      process_.kill('SIGTERM');
      throw new Error(`the second instance did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    base: `http://127.0.0.1:${port}`,
    output: () => output,
    stop: async () => {
      if (process_.exitCode !== null) return;
      const exited = new Promise((resolve) => process_.once('exit', resolve));
      process_.kill('SIGTERM');
      await exited;
    },
  };
}
