import { withTransaction, type Pool } from '../../../platform/database/pool.js';
import { restoreAuditRows } from '../../audit/audit-repository.js';
import type { CompiledSchema } from '../../schemas/compiled-schema.js';
import { restageRows } from '../archive-repository.js';
import type { ColdPartitions } from '../cold-partitions.js';
import type { ArchiveFiles, FileCopy } from './archive-files.js';
import { supersedeCopies } from './manifest-repository.js';

/**
 * Puts an archived record that lives in files back into PostgreSQL's staging tables (its current
 * copy, history rows and audit events, from files checked against the manifest), as the owner, and
 * marks its copies in files superseded, so the unarchive that follows proceeds as for a staged
 * record and the record's audit chain continues where it left off. Returns false when no file
 * holds a current copy of the record. Two DuckDB reads: the record's copies (which sets hold it;
 * none when the caller passes the copies it read), then its history and audit events from those
 * sets alone.
 */
export async function restageFromFiles(
  ownerPool: Pool,
  files: ArchiveFiles,
  partitions: ColdPartitions,
  schema: CompiledSchema,
  id: string,
  knownCopies?: FileCopy[],
): Promise<boolean> {
  const copies = knownCopies ?? (await files.copiesOf(ownerPool, schema.path, id));
  const copy = await files.currentCopy(ownerPool, schema.path, id, copies);
  if (copy === undefined) return false;
  const holding = [
    ...new Map(copies.map((candidate) => [candidate.entry.file_set_id, candidate.entry])).values(),
  ];
  const { history, audit } = await files.eventsOf(holding, id);
  await partitions.ensure(new Date(copy.archived_at));
  await withTransaction(ownerPool, async (client) => {
    await restageRows(client, schema.path, [{ record_id: id, ...copy }], history);
    await restoreAuditRows(client, audit);
    await supersedeCopies(
      client,
      holding.map((entry) => entry.file_set_id),
      id,
    );
  });
  return true;
}
