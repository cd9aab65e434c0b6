import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';

/** What a fetch of an object found, given the version of the cached copy. */
export type FetchOutcome =
  /** The cached copy is the current version. */
  | { readonly kind: 'unchanged' }
  /** The object was written to the temporary path; `version` is its ETag (without quotes). */
  | { readonly kind: 'fetched'; readonly version: string }
  | { readonly kind: 'absent' };

/** Fetches the current object into `temporaryPath` unless `cachedVersion` is still current. */
export type Fetcher = (cachedVersion: string | undefined, temporaryPath: string) => Promise<FetchOutcome>;

interface Entry {
  readonly file: string;
  readonly size: number;
  readonly version: string;
}

// `<key hash>.<version>.<last key segment>`: the version survives a restart, and the name keeps
// the object's extension for readers that look at it.
const fileNamePattern = /^([0-9a-f]{40})\.([A-Za-z0-9-]{1,64})\.[^/]+$/;
const temporaryPrefix = '.tmp-';

/**
 * The local copies behind `S3ObjectStore.localPath`: one file per key, written atomically
 * (temporary file, fsync, rename), bounded to `maxBytes` by removing the least recently used copies
 * (the copy just handed out is kept even when it alone is larger). Concurrent lookups of one key
 * share one fetch. Copies left by an earlier process are adopted at the first use. One process per
 * folder: two processes sharing it would each count only their own copies.
 */
export class DownloadCache {
  // Insertion order is recency order: a used entry is moved to the end.
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<string | undefined>>();
  private totalBytes = 0;
  private ready: Promise<void> | undefined;

  constructor(
    readonly dir: string,
    private readonly maxBytes: number,
  ) {}

  /** The path of the current copy of `key`, fetched when missing or stale; undefined when absent. */
  async pathOf(key: string, fetch: Fetcher): Promise<string | undefined> {
    const id = idOf(key);
    const running = this.pending.get(id);
    if (running !== undefined) return running;
    const lookup = this.lookup(id, key, fetch).finally(() => this.pending.delete(id));
    this.pending.set(id, lookup);
    return lookup;
  }

  /** Removes the copy of `key`, if any. */
  async remove(key: string): Promise<void> {
    await this.init();
    await this.drop(idOf(key));
  }

  /** Bytes held by the copies. */
  get size(): number {
    return this.totalBytes;
  }

  private async lookup(id: string, key: string, fetch: Fetcher): Promise<string | undefined> {
    await this.init();
    const cached = this.entries.get(id);
    const temporary = path.join(this.dir, `${temporaryPrefix}${randomBytes(8).toString('hex')}`);
    try {
      const outcome = await fetch(cached?.version, temporary);
      if (outcome.kind === 'absent') {
        await this.drop(id);
        return undefined;
      }
      if (outcome.kind === 'unchanged' && cached !== undefined) {
        this.touch(id, cached);
        await utimes(cached.file, new Date(), new Date()).catch(() => undefined);
        return cached.file;
      }
      if (outcome.kind !== 'fetched') throw new Error(`The archive store had no copy of ${key} to keep`);
      const version = /^[A-Za-z0-9-]{1,64}$/.test(outcome.version)
        ? outcome.version
        : createHash('sha256').update(outcome.version).digest('hex').slice(0, 64);
      const file = path.join(this.dir, `${id}.${version}.${key.split('/').at(-1) ?? 'object'}`);
      await syncFile(temporary);
      await rename(temporary, file);
      const { size } = await stat(file);
      if (cached !== undefined && cached.file !== file) await this.drop(id);
      else if (cached !== undefined) this.forget(id);
      this.touch(id, { file, size, version });
      this.totalBytes += size;
      await this.evict(id);
      return file;
    } finally {
      await rm(temporary, { force: true });
    }
  }

  private touch(id: string, entry: Entry): void {
    this.entries.delete(id);
    this.entries.set(id, entry);
  }

  private forget(id: string): Entry | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    this.entries.delete(id);
    this.totalBytes -= entry.size;
    return entry;
  }

  private async drop(id: string): Promise<void> {
    const entry = this.forget(id);
    if (entry !== undefined) await rm(entry.file, { force: true });
  }

  private async evict(keep: string): Promise<void> {
    for (const id of [...this.entries.keys()]) {
      if (this.totalBytes <= this.maxBytes) return;
      if (id !== keep && !this.pending.has(id)) await this.drop(id);
    }
  }

  private init(): Promise<void> {
    this.ready ??= this.adopt().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  // Takes over the copies an earlier process left, oldest use first; removes torn temporary files.
  private async adopt(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const found: { id: string; entry: Entry; used: number }[] = [];
    for (const name of await readdir(this.dir)) {
      const file = path.join(this.dir, name);
      const match = fileNamePattern.exec(name);
      const info = await stat(file).catch(() => undefined);
      if (match === null || info === undefined || !info.isFile()) {
        if (name.startsWith(temporaryPrefix)) await rm(file, { force: true });
        continue;
      }
      const [, id = '', version = ''] = match;
      found.push({ id, entry: { file, size: info.size, version }, used: info.mtimeMs });
    }
    found.sort((a, b) => a.used - b.used);
    for (const { id, entry } of found) {
      const older = this.forget(id);
      if (older !== undefined) await rm(older.file, { force: true });
      this.entries.set(id, entry);
      this.totalBytes += entry.size;
    }
    await this.evict('');
  }
}

function idOf(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 40);
}

async function syncFile(file: string): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
