import { readFileSync } from 'node:fs';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Thrown when another live weft process owns the embedded cluster's folder. */
export class ClusterInUseError extends Error {
  constructor(
    readonly directory: string,
    readonly ownerPid: number,
  ) {
    super(
      `the embedded PostgreSQL in ${directory} is in use by a running weft process (pid ${ownerPid}); ` +
        'stop it first, or give this one another WEFT_DATA_DIR',
    );
    this.name = 'ClusterInUseError';
  }
}

/** The claim this process holds on a cluster folder. */
export interface ClusterClaim {
  /** Gives the folder up (only if the owner file still names this process). */
  release(): Promise<void>;
}

interface Owner {
  pid: number;
  /** The process's start time in clock ticks since boot (Linux), telling a reused pid apart. */
  startTime?: string;
}

const ownerFileName = 'weft.pid';

/**
 * Claims the embedded cluster in `directory` for this process, through an owner file beside the
 * cluster naming the process (pid and start time). A file naming a live process other than this
 * one means another weft runs this cluster: ClusterInUseError, and nothing is touched. A file
 * naming a dead process (killed without its shutdown) is stale and replaced; whatever server that
 * process left running is then an orphan the caller may stop.
 */
export async function claimCluster(directory: string): Promise<ClusterClaim> {
  const file = path.join(directory, ownerFileName);
  const self: Owner = { pid: process.pid, startTime: startTimeOf(process.pid) };
  const text = JSON.stringify(self);
  for (let attempt = 0; attempt < 3; attempt++) {
    const owner = await readOwner(file);
    if (owner !== undefined && owner.pid !== process.pid && isLive(owner))
      throw new ClusterInUseError(directory, owner.pid);
    if (owner !== undefined) await unlink(file).catch(() => undefined);
    // Written aside and linked into place: the link fails if a concurrent start got there first.
    const staged = `${file}.${process.pid}`;
    await writeFile(staged, text, { mode: 0o600 });
    try {
      await link(staged, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      continue;
    } finally {
      await unlink(staged).catch(() => undefined);
    }
    return {
      release: async () => {
        if ((await readOwner(file))?.pid === process.pid) await unlink(file).catch(() => undefined);
      },
    };
  }
  const owner = await readOwner(file);
  throw new ClusterInUseError(directory, owner?.pid ?? 0);
}

async function readOwner(file: string): Promise<Owner | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<Owner>;
    if (Number.isInteger(parsed.pid) && (parsed.pid as number) > 0)
      return { pid: parsed.pid as number, startTime: parsed.startTime };
  } catch {
    // An unreadable file (a crash while writing it) names no one.
  }
  return { pid: 0 };
}

function isLive(owner: Owner): boolean {
  if (owner.pid <= 0 || !isAlive(owner.pid)) return false;
  // Where start times can be read, a different one means the pid now belongs to another process.
  const startTime = startTimeOf(owner.pid);
  return owner.startTime === undefined || startTime === undefined || startTime === owner.startTime;
}

/** True if a process with this id exists (signal 0 checks without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user (postgres, when weft runs as root).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Field 22 of /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}
