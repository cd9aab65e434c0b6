import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, open, readFile, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { assertValidKey, assertValidPrefix } from './object-keys.js';
import type { ObjectStore } from './object-store.js';

/**
 * An object store in a folder of the local filesystem: each key is a file under `root` (created on
 * demand, mode 0700). Writes go to a temporary file in the target folder, are fsynced, renamed into
 * place and the folder fsynced, so a reader sees the old file, the new one or none, and a crash
 * leaves no torn file behind; `sweepTemporary` removes the temporary files a killed process left.
 */
export class LocalObjectStore implements ObjectStore {
  readonly location: string;
  // Temporary files this process is writing now: never swept, however long a copy takes.
  private readonly writing = new Set<string>();
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(private readonly root: string) {
    this.root = path.resolve(root);
    this.location = pathToFileURL(this.root).href;
  }

  async putFile(key: string, source: string): Promise<void> {
    const target = this.pathOf(key);
    const folder = path.dirname(target);
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const temporary = path.join(folder, `${temporaryPrefix}${randomBytes(8).toString('hex')}`);
    this.writing.add(temporary);
    try {
      await copyFile(source, temporary);
      await fsync(temporary, 'r+');
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    } finally {
      this.writing.delete(temporary);
    }
    await fsync(folder, 'r');
  }

  /**
   * Removes the temporary files (`.tmp-…`) of writes that died (a killed process), which `list`
   * never shows: those last modified at least `maxAgeMs` ago and not being written by this
   * process. Walks the whole folder, so it does so at most every ten minutes (sooner for a
   * shorter age). Resolves with how many were removed.
   */
  async sweepTemporary(maxAgeMs: number): Promise<number> {
    // Ages are measured on the wall clock because the files' times are the filesystem's.
    const now = Date.now();
    if (now - this.lastSweep < Math.min(maxAgeMs, maxSweepIntervalMs)) return 0;
    this.lastSweep = now;
    let removed = 0;
    const walk = async (folder: string): Promise<void> => {
      const entries = await readdir(folder, { withFileTypes: true }).catch(absentAsUndefined);
      for (const entry of entries ?? []) {
        const file = path.join(folder, entry.name);
        if (entry.isDirectory() && !entry.name.startsWith('.')) await walk(file);
        if (!entry.isFile() || !entry.name.startsWith(temporaryPrefix) || this.writing.has(file)) continue;
        const found = await stat(file).catch(absentAsUndefined);
        if (found === undefined || now - found.mtimeMs < maxAgeMs) continue;
        await rm(file, { force: true });
        removed += 1;
      }
    };
    await walk(this.root);
    return removed;
  }

  async localPath(key: string): Promise<string | undefined> {
    const file = this.pathOf(key);
    const found = await stat(file).catch(absentAsUndefined);
    return found?.isFile() === true ? realpath(file) : undefined;
  }

  async get(key: string): Promise<Buffer | undefined> {
    return readFile(this.pathOf(key)).catch(absentAsUndefined);
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async list(prefix: string): Promise<string[]> {
    assertValidPrefix(prefix);
    // Walk only the folder the prefix's complete segments name.
    const folder = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    const keys: string[] = [];
    const walk = async (relative: string): Promise<void> => {
      const entries = await readdir(path.join(this.root, relative), { withFileTypes: true }).catch(
        absentAsUndefined,
      );
      for (const entry of entries ?? []) {
        if (entry.name.startsWith('.')) continue;
        const key = relative === '' ? entry.name : `${relative}/${entry.name}`;
        if (entry.isDirectory()) await walk(key);
        else if (entry.isFile() && key.startsWith(prefix)) keys.push(key);
      }
    };
    await walk(folder);
    return keys.sort();
  }

  private pathOf(key: string): string {
    assertValidKey(key);
    return path.join(this.root, ...key.split('/'));
  }
}

const temporaryPrefix = '.tmp-';
const maxSweepIntervalMs = 600_000;

async function fsync(file: string, flags: string): Promise<void> {
  const handle = await open(file, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

// A missing file (or a key naming a folder, or a folder that is a file) is an absent object.
function absentAsUndefined(error: unknown): undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return undefined;
  throw error;
}
