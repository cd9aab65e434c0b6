import { withTransaction, type Pool, type PoolClient } from '../../platform/database/pool.js';
import {
  claimIdempotencyKey,
  storeIdempotentResponse,
  type StoredResponse,
} from '../idempotency/idempotency-store.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { Identity } from '../types.js';
import type { Queryable } from '../../platform/database/queryable.js';

/** What a write hook sees: the write that just happened, inside its transaction. */
export interface WriteEvent {
  client: PoolClient;
  schema: CompiledSchema;
  identity: Identity;
  operation: 'create' | 'update' | 'delete';
  recordId: string;
  /** The response body of the write (record JSON for create, changed fields for update). */
  response: StoredResponse;
}

/**
 * Runs inside the write's transaction, after the write statement (history rows, audit chain…). A
 * hook that throws rolls the write back.
 */
export type WriteHook = (event: WriteEvent) => Promise<void>;

/** One write to run. */
export interface WriteRequest {
  schema: CompiledSchema;
  identity: Identity;
  operation: WriteEvent['operation'];
  idempotency?: { key: string; hash: string };
  /**
   * When set, the write runs in a transaction even without hooks or a key, and `begin` runs first
   * in it (the access session: role and caller settings for row-level security).
   */
  begin?: (client: PoolClient) => Promise<void>;
  /** Run in a transaction even without hooks or a key (the write takes several statements). */
  transactional?: boolean;
  /** Executes the write statement; returns the record id and the response. */
  execute(db: Queryable): Promise<{ recordId: string; response: StoredResponse }>;
}

/** A write's response, and whether it was replayed from an idempotency key. */
export interface WriteResult {
  response: StoredResponse;
  replayed: boolean;
}

/**
 * The write pipeline: idempotency claim, the write, the hooks and the stored response commit
 * together. A plain write with no hooks and no key is a single autocommitted statement.
 */
export class WritePipeline {
  private readonly hooks: WriteHook[] = [];

  constructor(private readonly pool: Pool) {}

  /** Adds a hook run inside every write's transaction. */
  use(hook: WriteHook): void {
    this.hooks.push(hook);
  }

  /** Runs a write. */
  async run(request: WriteRequest): Promise<WriteResult> {
    if (!request.idempotency && this.hooks.length === 0 && !request.begin && request.transactional !== true)
      return { response: (await request.execute(this.pool)).response, replayed: false };
    return withTransaction(this.pool, async (client) => {
      const { idempotency, identity } = request;
      if (request.begin) await request.begin(client);
      if (idempotency) {
        const stored = await claimIdempotencyKey(
          client,
          identity.actor_id,
          idempotency.key,
          idempotency.hash,
        );
        if (stored) return { response: stored, replayed: true };
      }
      const { recordId, response } = await request.execute(client);
      for (const hook of this.hooks)
        await hook({
          client,
          schema: request.schema,
          identity,
          operation: request.operation,
          recordId,
          response,
        });
      if (idempotency) await storeIdempotentResponse(client, identity.actor_id, idempotency.key, response);
      return { response, replayed: false };
    });
  }
}
