import { withTransaction, type Pool, type PoolClient } from '../../platform/database/pool.js';
import {
  claimIdempotencyKey,
  storeIdempotentResponse,
  type StoredResponse,
} from '../idempotency/idempotency-repository.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { Identity } from '../types.js';
import type { Queryable } from '../../platform/database/queryable.js';

/** A write as the routes hand it over: who, on which schema, for which request. */
export interface RecordWrite {
  identity: Identity;
  schema: CompiledSchema;
  /** The request id, part of the response body stored with an idempotency key. */
  requestId: string;
  /** The request's Idempotency-Key claim, read once the access checks have passed. */
  idempotency: () => { key: string; hash: string } | undefined;
}

/** One write to run. */
export interface WriteRequest {
  schema: CompiledSchema;
  identity: Identity;
  operation: 'create' | 'update' | 'delete';
  idempotency?: { key: string; hash: string };
  /**
   * When set, the write runs in a transaction even without a key, and `begin` runs first
   * in it (the access session: role and caller settings for row-level security).
   */
  begin?: (client: PoolClient) => Promise<void>;
  /** Run in a transaction even without a key (the write takes several statements). */
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
 * The write pipeline: the idempotency claim, the write and the stored response commit together.
 * A plain write with no key is a single autocommitted statement. History and audit rows are
 * written by the tables' change triggers, inside the write's statement.
 */
export class WritePipeline {
  constructor(private readonly pool: Pool) {}

  /** Runs a write. */
  async run(request: WriteRequest): Promise<WriteResult> {
    if (!request.idempotency && !request.begin && request.transactional !== true)
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
      const { response } = await request.execute(client);
      if (idempotency) await storeIdempotentResponse(client, identity.actor_id, idempotency.key, response);
      return { response, replayed: false };
    });
  }
}
