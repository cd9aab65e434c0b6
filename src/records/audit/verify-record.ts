import type { Pool } from '../../platform/database/pool.js';
import type { RecordReader } from '../access/record-reader.js';
import { archivedHistoryRowHashes } from '../archive/archive-repository.js';
import { historyRowHashes } from '../history/history-repository.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { Identity } from '../types.js';
import { auditChain } from './audit-repository.js';
import type { AnchorStore } from './anchor-store.js';
import { verifyChain, type ChainVerification } from './verify-chain.js';

/** What verifying a record reads from. */
export interface VerifyRecordDependencies {
  /**
   * The owner's pool, for the history row hashes: the runtime roles see history and cold storage
   * only under row-level security (archived states by their own row filter), so a row would look
   * missing to them.
   */
  ownerPool: Pool;
  /** Reads the chain as the caller. */
  reader: RecordReader;
  /** The signed anchors; undefined when no signing key is configured. */
  anchors: AnchorStore | undefined;
}

/**
 * Verifies one record's audit chain (`POST /platform/audit/verify`): the chain, read through the
 * caller's access layers after checking the record is readable (404 otherwise); the history rows
 * the chain covers, hot and archived; and the record's newest signed anchor. Undefined when the
 * audit log knows nothing of the record and no anchor does either.
 */
export async function verifyRecord(
  deps: VerifyRecordDependencies,
  identity: Identity,
  schema: CompiledSchema,
  id: string,
): Promise<ChainVerification | undefined> {
  const { ownerPool, reader, anchors } = deps;
  const links = await reader.read(identity, [schema], async (db) => {
    await reader.requireReadable(db, identity, schema, id);
    return auditChain(db, schema.path, id);
  });
  // History rows are hashed as the owner, outside the caller's row filter and row-level security: a
  // row of a state the caller may not see (an earlier region, say) must not look missing. Only
  // hashes are compared; no content of the rows reaches the caller, who may read the record
  // (checked above).
  let history;
  let archived;
  if (schema.definition.timeMachine) {
    history = await historyRowHashes(ownerPool, schema, id);
    // Rows of an archived (or archived and brought back) record live on in cold storage.
    const hot = new Set(history.map((row) => row.event_id));
    const away = links.flatMap((link) =>
      link.history_event_id !== null && !hot.has(link.history_event_id) ? [link.history_event_id] : [],
    );
    archived = await archivedHistoryRowHashes(ownerPool, schema.path, id, away);
  }
  const anchor = await anchors?.lookup(schema.path, id);
  if (links.length === 0 && !(anchor && (!anchor.intact || anchor.head))) return undefined;
  return verifyChain(links, {
    ...(history ? { history, archivedHistory: archived } : {}),
    ...(anchor ? { anchor } : {}),
  });
}
