import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import type { Variables } from '../runtime/index.js';
import type { StatementBuilder } from './write-statement.js';

/*
 * `buffered_messages`: messages nothing waited for, kept (with a time to live) for the first
 * subscription that opens; delivering one claims and deletes it in the engine's write.
 */

type Db = Pool | PoolClient;

/** A message kept for the first subscription that opens before `expiresAt`. */
export interface BufferedMessage {
  id: string;
  variables: Variables;
  expiresAt: Date;
}

/** Expired messages removed per buffering call, so the table cannot grow without bound. */
const SWEEP_BATCH = 100;

/** Stores a message nothing waited for; first drops a batch of the org's expired ones. */
export async function bufferMessage(
  db: Db,
  input: {
    orgId: string;
    messageName: string;
    correlationKey: string | null;
    variables: Variables;
    now: Date;
    expiresAt: Date;
  },
): Promise<BufferedMessage> {
  await deleteExpiredBufferedMessages(db, input.now, SWEEP_BATCH);
  const { rows } = await db.query<{ id: string }>({
    name: 'workflow.events.buffer_message',
    text: `INSERT INTO buffered_messages (org_id, message_name, correlation_key, variables, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    values: [
      input.orgId,
      input.messageName,
      input.correlationKey,
      JSON.stringify(input.variables),
      input.now,
      input.expiresAt,
    ],
  });
  const id = rows[0]?.id;
  if (id === undefined) throw new Error('the buffered message was not stored');
  return { id, variables: input.variables, expiresAt: input.expiresAt };
}

/**
 * Deletes up to `limit` buffered messages expired at `now` (of any org) and returns how many; the
 * leader's housekeeping calls it in batches, and each buffering call once.
 */
export async function deleteExpiredBufferedMessages(db: Db, now: Date, limit: number): Promise<number> {
  const { rowCount } = await db.query({
    name: 'workflow.events.sweep_buffered',
    text: `DELETE FROM buffered_messages WHERE id IN (
             SELECT id FROM buffered_messages WHERE expires_at <= $1 LIMIT $2)`,
    values: [now, limit],
  });
  return rowCount ?? 0;
}

/**
 * Unexpired buffered messages a message wait may take, oldest first: same org and name; a wait
 * without a correlation key takes any, a keyed one only those with its key.
 */
export async function findBufferedMessages(
  db: Db,
  input: { orgId: string; messageName: string; correlationKey: string | null; now: Date; limit: number },
): Promise<BufferedMessage[]> {
  const { rows } = await db.query<{ id: string; variables: Variables; expires_at: Date }>({
    name: 'workflow.events.find_buffered',
    text: `SELECT id, variables, expires_at FROM buffered_messages
           WHERE org_id = $1 AND message_name = $2 AND expires_at > $3
             AND ($4::text IS NULL OR correlation_key = $4)
           ORDER BY created_at, id
           LIMIT $5`,
    values: [input.orgId, input.messageName, input.now, input.correlationKey, input.limit],
  });
  return rows.map((row) => ({ id: row.id, variables: row.variables, expiresAt: row.expires_at }));
}

/** True while the buffered message is there and unexpired at `now`. */
export async function bufferedMessageExists(db: Db, messageId: string, now: Date): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'workflow.events.buffered_exists',
    text: 'SELECT 1 FROM buffered_messages WHERE id = $1 AND expires_at > $2',
    values: [messageId, now],
  });
  return Boolean(rowCount);
}

/**
 * Adds the CTE `claimed_message` to an engine write: the message row, locked, while it is there
 * and unexpired. (See messageClaimed.)
 */
export function addMessageClaim(statement: StatementBuilder, messageId: string, now: Date): void {
  statement.with(
    'claimed_message',
    `SELECT id FROM buffered_messages
         WHERE id = ${statement.param(messageId)} AND expires_at > ${statement.param(now)} FOR UPDATE`,
  );
}

/** SQL that holds when the write's `claimed_message` CTE claimed the message. */
export const messageClaimed = 'EXISTS (SELECT 1 FROM claimed_message)';

/** Adds the delete of the claimed message, if the write's `guard` held, to an engine write. */
export function addClaimedMessageDelete(statement: StatementBuilder, guard: string): void {
  statement.with(
    'taken_message',
    `DELETE FROM buffered_messages WHERE id IN (SELECT id FROM claimed_message) AND ${guard}`,
  );
}
