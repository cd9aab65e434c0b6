import { withTransaction, type Pool } from '../../../platform/database/pool.js';
import { deleteAuditEventsOf } from '../../audit/audit-repository.js';
import type { CompiledSchema } from '../../schemas/compiled-schema.js';
import { deleteStagedRecords, expiredStagedRecords, exportLockKey } from '../archive-repository.js';
import type { ArchiveFiles } from './archive-files.js';
import { fileSetsOf, supersededIn } from './manifest-repository.js';
import { rewriteWithout } from './rewrite-file-set.js';

const dayMilliseconds = 86_400_000;
const stagedBatch = 1000;

/**
 * `spec.archive.retainDays`: deletes every archived record whose current copy was archived more
 * than that many days before `now`, with its history and audit events. Staged records go in
 * batches (one transaction each, under the schema's export lock so no unarchive or export of them
 * runs meanwhile); file sets holding an expired copy are rewritten without those records (and
 * without copies superseded since), or removed when nothing is left. Returns the records deleted.
 */
export async function applyRetention(
  pool: Pool,
  files: ArchiveFiles | undefined,
  schema: CompiledSchema,
  now: Date,
): Promise<number> {
  const retainDays = schema.definition.archive?.retainDays;
  if (retainDays === undefined) return 0;
  const cutoff = new Date(now.getTime() - retainDays * dayMilliseconds).toISOString();
  let deleted = 0;
  for (;;) {
    const ids = await expiredStagedRecords(pool, schema, cutoff, stagedBatch);
    if (ids.length === 0) break;
    await withTransaction(pool, async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [exportLockKey(schema.path)]);
      await deleteStagedRecords(client, schema.path, ids);
      await deleteAuditEventsOf(client, schema.path, ids);
    });
    deleted += ids.length;
    if (ids.length < stagedBatch) break;
  }
  if (!files) return deleted;
  for (const entry of await fileSetsOf(pool, schema.path)) {
    if (entry.min_archived_at >= cutoff) continue;
    const superseded = await supersededIn(pool, entry.file_set_id);
    const expired = (await files.archivedBefore(entry, cutoff)).filter((id) => !superseded.includes(id));
    if (expired.length === 0) continue;
    if (await rewriteWithout(pool, files, schema, entry, [...expired, ...superseded]))
      deleted += expired.length;
  }
  return deleted;
}
