import type { Pool } from '../../platform/database/pool.js';
import type { RecordReader } from '../access/record-reader.js';
import { archivedHistoryRowHashes, fileHistoryRowHashes } from '../archive/archive-repository.js';
import type { ArchiveFiles } from '../archive/files/archive-files.js';
import { historyRowHashes } from '../history/history-repository.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { Identity } from '../types.js';
import { auditChain, auditChainWithArchived } from './audit-repository.js';
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
  /** The archive's files, where the events and history rows of records archived to files live. */
  files?: ArchiveFiles;
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
  const { ownerPool, reader, anchors, files } = deps;
  // Events of a record archived to files live there (read as the owner, after the check below).
  let archivedEvents: string[] = [];
  const links = await reader.read(identity, [schema], async (db) => {
    await reader.requireReadable(db, identity, schema, id);
    if (files) archivedEvents = await files.rowsOf(ownerPool, schema.path, id, 'audit');
    return archivedEvents.length > 0
      ? auditChainWithArchived(db, schema.path, id, archivedEvents)
      : auditChain(db, schema.path, id);
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
    if (files && away.length > archived.length) {
      const found = new Set(archived.map((row) => row.event_id));
      const fromFiles = await fileHistoryRowHashes(
        ownerPool,
        await files.rowsOf(ownerPool, schema.path, id, 'history'),
      );
      archived.push(...fromFiles.filter((row) => away.includes(row.event_id) && !found.has(row.event_id)));
    }
  }
  const anchor = await anchors?.lookup(schema.path, id);
  if (links.length === 0 && !(anchor && (!anchor.intact || anchor.head))) return undefined;
  return verifyChain(links, {
    ...(history ? { history, archivedHistory: archived } : {}),
    ...(anchor ? { anchor } : {}),
  });
}
