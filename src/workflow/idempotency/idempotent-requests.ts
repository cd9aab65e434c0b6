import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  describeDatabaseError,
  withTransaction,
  type Pool,
  type PoolClient,
} from '../../platform/database/pool.js';
import { requestHash } from '../../platform/idempotency/request-hash.js';
import type { Logger } from '../../platform/logging/logger.js';
import type { Identity } from '../identity/auth/identity.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { WorkflowErrors } from '../errors.js';
import {
  claimIdempotencyKey,
  deleteExpiredIdempotencyKeys,
  storeIdempotentResponse,
  type KeyOwner,
} from './idempotency-repository.js';

/** The request header that makes a start, message or signal idempotent. */
export const idempotencyHeader = 'idempotency-key';
/** The response header of a replayed response. */
export const replayedHeader = 'idempotent-replayed';

const keyShape = /^[\x21-\x7e]{1,255}$/;
/** Expired keys go lazily: at most one sweep a minute per process, a bounded batch each. */
const sweepEveryMs = 60_000;
const sweepBatch = 500;

/** The request's Idempotency-Key; 400 when it is not 1 to 255 printable ASCII characters. */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const key = request.headers[idempotencyHeader];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !keyShape.test(key))
    throw WorkflowErrors.validation('Invalid Idempotency-Key', {
      errors: [{ path: 'headers.idempotency-key', message: 'must be 1 to 255 printable ASCII characters' }],
    });
  return key;
}

/** Whose keys a caller uses: the API key it came with, else its user. */
export function keyActor(identity: Identity): string {
  return identity.via.kind === 'api-key' ? `api-key:${identity.via.keyId}` : `user:${identity.userId}`;
}

/**
 * Runs the writes of starts, messages and signals under their `Idempotency-Key`. Without a key the
 * work runs as it always did, on the pool. With one, the key's row, the work and the serialized
 * response commit in one transaction: a crash leaves all or nothing, a retry with the same key and
 * request gets the stored status and body again (header `Idempotent-Replayed: true`) and runs
 * nothing, the same key with another request is 422. A request that fails rolls its key back, so
 * its retry runs again. Authorize before calling: a replay is only for a caller still allowed.
 */
export class IdempotentRequests {
  private lastSweep = 0;

  constructor(
    private readonly pool: Pool,
    private readonly logger?: Logger,
  ) {}

  /**
   * Answers `request` with `status` and what `work` returns (run in the key's transaction).
   * `afterCommit` runs after that transaction commits, with the result, when the work ran in it.
   */
  async respond<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    options: { orgId: string; status: number; afterCommit?: (result: T) => Promise<void> },
    work: (db: Pool | PoolClient) => Promise<T>,
  ): Promise<FastifyReply> {
    const key = idempotencyKeyOf(request);
    if (key === undefined) return reply.status(options.status).send(await work(this.pool));
    const owner: KeyOwner = { orgId: options.orgId, actor: keyActor(identityOf(request)), key };
    const hash = requestHash(request.method, request.url, request.body);
    this.sweepNowAndThen();
    const outcome = await withTransaction(this.pool, async (client) => {
      const stored = await claimIdempotencyKey(client, owner, hash);
      if (stored) return { ...stored, replayed: true as const };
      const result = await work(client);
      // The route's response schema serializes it, so a replay is byte for byte the same body.
      const serialized = reply.status(options.status).serialize(result);
      const body = typeof serialized === 'string' ? serialized : new TextDecoder().decode(serialized);
      const response = { status: options.status, body };
      await storeIdempotentResponse(client, owner, response);
      return { ...response, replayed: false as const, result };
    });
    if (outcome.replayed) void reply.header(replayedHeader, 'true');
    else
      await options.afterCommit?.(outcome.result).catch((error: unknown) => {
        // Committed and answered all the same; what afterCommit hoped to add happens later or not.
        this.logger?.warn({ err: describeDatabaseError(error) }, 'work after an idempotent commit failed');
      });
    return reply.status(outcome.status).type('application/json; charset=utf-8').send(outcome.body);
  }

  private sweepNowAndThen(): void {
    const now = Date.now();
    if (now - this.lastSweep < sweepEveryMs) return;
    this.lastSweep = now;
    deleteExpiredIdempotencyKeys(this.pool, sweepBatch).catch((error: unknown) =>
      this.logger?.warn(
        { err: describeDatabaseError(error) },
        'idempotency key sweep failed; it runs again later',
      ),
    );
  }
}
