import { spawn, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';

/** Throughput and latency of one load run. */
export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

/** Runs autocannon against `url` with `connections` for `seconds`, after a short warm-up. */
export async function load(
  url: string,
  options: { connections: number; seconds: number; headers?: Record<string, string>; warmupSeconds?: number },
): Promise<LoadResult> {
  const run = (duration: number) =>
    autocannon({ url, connections: options.connections, duration, headers: options.headers ?? {} });
  await run(options.warmupSeconds ?? 2);
  return toLoadResult(await run(options.seconds));
}

/** The figures of an autocannon run that the benchmarks print. */
export function toLoadResult(result: autocannon.Result): LoadResult {
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

/** A server child process, ready once it printed `READY <port>`. */
export interface ServerProcess {
  port: number;
  /** The child's process id (to read its CPU time from /proc). */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** Starts `file` with tsx and the given environment; resolves when it prints `READY <port>`. */
export function startServerProcess(file: string, env: Record<string, string>): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    // BENCH_PROFILE=dir writes a CPU profile of the server into dir (open it in Chrome DevTools).
    const profile = process.env.BENCH_PROFILE
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
      : [];
    const child: ChildProcess = spawn(process.execPath, [...profile, '--import', 'tsx', file], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /READY (\d+)/.exec(output);
      if (match?.[1]) {
        resolve({
          port: Number(match[1]),
          pid: child.pid,
          stop: () =>
            new Promise((done) => {
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}: ${output}`)));
  });
}
