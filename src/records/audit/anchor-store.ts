import { appendFile, mkdir, open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Ed25519Signer } from '../../platform/crypto/ed25519-signer.js';
import { decodeCheckpoint, encodeCheckpoint, lineHash, type Checkpoint } from './checkpoint.js';

/** The newest signed head of one record's chain. */
export interface AnchoredHead {
  eventId: string;
  hash: string;
  /** The checkpoint that signed it. */
  seq: number;
  at: string;
}

/** What the store knows about one record: its anchored head, or why the store cannot be trusted. */
export type AnchorLookup =
  { intact: true; head: AnchoredHead | undefined } | { intact: false; problem: string };

/** A checkpoint before the store fills in its place in the file. */
export type NewCheckpoint = Pick<Checkpoint, 'at' | 'up_to_event_id' | 'heads'>;

const headKey = (schema: string, entityId: string) => `${schema}\n${entityId}`;

/**
 * The append-only anchor file, `<dir>/checkpoints-<key id>.jsonl`, outside the database: one signed
 * checkpoint per line, never rewritten. Reading is incremental (only bytes added since the last
 * read), so lines other processes append to a shared folder are picked up; every line is checked
 * (sequence, link to the line before, signature) before its heads count. A file that shrinks or a
 * line that fails a check makes the store report itself not intact, for every record.
 */
export class AnchorStore {
  /** The checkpoint file. */
  readonly file: string;
  private offset = 0;
  private lastLine: string | undefined;
  private lastCheckpoint: Checkpoint | undefined;
  private problem: string | undefined;
  private readonly heads = new Map<string, AnchoredHead>();
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly directory: string,
    private readonly signer: Ed25519Signer,
  ) {
    this.file = path.join(directory, `checkpoints-${signer.keyId}.jsonl`);
  }

  /** Opens (creating the folder, and the public key file beside the checkpoints) and reads it. */
  static async open(directory: string, signer: Ed25519Signer): Promise<AnchorStore> {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    await writeFile(path.join(directory, `public-key-${signer.keyId}.pem`), signer.publicKeyPem, {
      flag: 'wx',
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    const store = new AnchorStore(directory, signer);
    await store.exclusive(() => store.refresh());
    return store;
  }

  /** The newest anchored head of a record, after reading what was appended since last time. */
  lookup(schema: string, entityId: string): Promise<AnchorLookup> {
    return this.exclusive(async () => {
      await this.refresh();
      if (this.problem !== undefined) return { intact: false, problem: this.problem };
      return { intact: true, head: this.heads.get(headKey(schema, entityId)) };
    });
  }

  /**
   * Runs `work` with the store read up to its end, no other store operation in between; `work` may
   * append checkpoints with the function it is given.
   */
  withLatest<T>(
    work: (state: {
      last: Checkpoint | undefined;
      problem: string | undefined;
      headOf: (schema: string, entityId: string) => AnchoredHead | undefined;
      append: (checkpoint: NewCheckpoint, nextFrom: string) => Promise<void>;
    }) => Promise<T>,
  ): Promise<T> {
    return this.exclusive(async () => {
      await this.refresh();
      return work({
        last: this.lastCheckpoint,
        problem: this.problem,
        headOf: (schema, entityId) => this.heads.get(headKey(schema, entityId)),
        append: (checkpoint, nextFrom) => this.append(checkpoint, nextFrom),
      });
    });
  }

  private async append(checkpoint: NewCheckpoint, nextFrom: string): Promise<void> {
    const line = encodeCheckpoint(
      {
        v: 1,
        seq: (this.lastCheckpoint?.seq ?? 0) + 1,
        at: checkpoint.at,
        key_id: this.signer.keyId,
        previous: this.lastLine === undefined ? '' : lineHash(this.lastLine),
        next_from: nextFrom,
        up_to_event_id: checkpoint.up_to_event_id,
        heads: checkpoint.heads,
      },
      this.signer,
    );
    // One write of the whole line with O_APPEND: never rewrites what is there.
    await appendFile(this.file, `${line}\n`, { flag: 'a', mode: 0o600 });
    await this.refresh();
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async refresh(): Promise<void> {
    if (this.problem !== undefined) return;
    let handle;
    try {
      handle = await open(this.file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (this.offset > 0) this.problem = `${path.basename(this.file)} was removed`;
      return;
    }
    try {
      const { size } = await handle.stat();
      if (size < this.offset) {
        this.problem = `${path.basename(this.file)} shrank`;
        return;
      }
      if (size === this.offset) return;
      const buffer = Buffer.alloc(size - this.offset);
      await handle.read(buffer, 0, buffer.length, this.offset);
      // Only whole lines: a line being appended by another process is read next time.
      const end = buffer.lastIndexOf(0x0a);
      if (end < 0) return;
      for (const line of buffer.subarray(0, end).toString('utf8').split('\n')) {
        const seq = (this.lastCheckpoint?.seq ?? 0) + 1;
        const checkpoint = decodeCheckpoint(line, seq, this.lastLine, this.signer);
        if (typeof checkpoint === 'string') {
          this.problem = `line ${seq} of ${path.basename(this.file)} ${checkpoint}`;
          return;
        }
        for (const [schema, entityId, eventId, hash] of checkpoint.heads)
          this.heads.set(headKey(schema, entityId), { eventId, hash, seq, at: checkpoint.at });
        this.lastLine = line;
        this.lastCheckpoint = checkpoint;
      }
      this.offset += end + 1;
    } finally {
      await handle.close();
    }
  }
}
