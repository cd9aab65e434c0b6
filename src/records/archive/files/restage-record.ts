import { withTransaction, type Pool } from '../../../platform/database/pool.js';
import { restoreAuditRows } from '../../audit/audit-repository.js';
import type { CompiledSchema } from '../../schemas/compiled-schema.js';
import { restageRows } from '../archive-repository.js';
import type { ColdPartitions } from '../cold-partitions.js';
import type { ArchiveFiles } from './archive-files.js';
import { supersedeCopies } from './manifest-repository.js';

/**
 * Puts an archived record that lives in files back into PostgreSQL's staging tables (its current
 * copy, history rows and audit events, from files checked against the manifest), as the owner, and
 * marks its copies in files superseded, so the unarchive that follows proceeds as for a staged
 * record and the record's audit chain continues where it left off. Returns false when no file
 * holds a current copy of the record.
 */
export async function restageFromFiles(
  ownerPool: Pool,
  files: ArchiveFiles,
  partitions: ColdPartitions,
  schema: CompiledSchema,
  id: string,
): Promise<boolean> {
  const current = await files.currentCopy(ownerPool, schema.path, id);
  if (current === undefined) return false;
  const copies = await files.copiesOf(ownerPool, schema.path, id);
  const [history, audit] = await Promise.all([
    files.rowsOf(ownerPool, schema.path, id, 'history'),
    files.rowsOf(ownerPool, schema.path, id, 'audit'),
  ]);
  await partitions.ensure(new Date(current.archived_at));
  await withTransaction(ownerPool, async (client) => {
    await restageRows(client, schema.path, [{ record_id: id, ...current }], history);
    await restoreAuditRows(client, audit);
    await supersedeCopies(client, [...new Set(copies.map((copy) => copy.entry.file_set_id))], id);
  });
  return true;
}
