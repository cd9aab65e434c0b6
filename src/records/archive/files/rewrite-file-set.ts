import { withTransaction, type Pool } from '../../../platform/database/pool.js';
import type { CompiledSchema } from '../../schemas/compiled-schema.js';
import { exportLockKey } from '../archive-repository.js';
import type { ArchiveFiles } from './archive-files.js';
import {
  clearPending,
  deleteFileSet,
  insertFileSet,
  markPending,
  supersedeCopies,
  supersededIn,
  type FileSetEntry,
} from './manifest-repository.js';

/**
 * Replaces a file set by a copy without every row of the records `drop` (retention, erasure), or
 * removes it when no record would be left. The new set is uploaded first; one transaction (under
 * the schema's export lock) then swaps the manifest rows, carries over the set's other superseded
 * copies and marks the old objects pending; they are removed after the commit (or by the sweep
 * after a crash). When another instance replaced the set first, this copy is thrown away. Returns
 * whether this call replaced it.
 */
export async function rewriteWithout(
  pool: Pool,
  files: ArchiveFiles,
  schema: CompiledSchema,
  entry: FileSetEntry,
  drop: readonly string[],
): Promise<boolean> {
  const replacement = await files.rewrite(entry, schema.definition, drop, (prefix) =>
    markPending(pool, schema.path, prefix),
  );
  let replaced = false;
  try {
    replaced = await withTransaction(pool, async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [exportLockKey(schema.path)]);
      const carried = (await supersededIn(client, entry.file_set_id)).filter((id) => !drop.includes(id));
      if (!(await deleteFileSet(client, entry.file_set_id))) return false;
      await markPending(client, schema.path, entry.object_prefix);
      if (replacement) {
        await insertFileSet(client, replacement);
        await clearPending(client, replacement.object_prefix);
        for (const id of carried) await supersedeCopies(client, [replacement.file_set_id], id);
      }
      return true;
    });
  } finally {
    const gone = replaced ? entry.object_prefix : replacement?.object_prefix;
    if (gone !== undefined)
      await files
        .remove(gone)
        .then(() => clearPending(pool, gone))
        .catch(() => undefined);
  }
  return replaced;
}
