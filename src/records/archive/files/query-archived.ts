import type { Queryable } from '../../../platform/database/queryable.js';
import type { SelectPlan } from '../../records/select-plan.js';
import type { CompiledSchema } from '../../schemas/compiled-schema.js';
import { queryArchive, type ArchivePage, type ArchivePosition } from '../archive-repository.js';
import type { ArchiveFiles } from './archive-files.js';
import { renderDuckCondition } from './duck-condition.js';
import type { DuckParameter } from './duck-engine.js';
import { currentCopies, fileSetsOf } from './manifest-repository.js';
import { pruneFileSets } from './prune-file-sets.js';

/** Whether position `a` comes after `b` in the archive order (newest archival first, then id). */
function isAfter(a: ArchivePosition, b: ArchivePosition): boolean {
  return a.archived_at < b.archived_at || (a.archived_at === b.archived_at && a.id > b.id);
}

/**
 * A page of the archive query over staged copies and the schema's files. DuckDB reads the file
 * sets the manifest cannot rule out and returns candidates (a superset, duck-condition.ts) in the
 * query's order; PostgreSQL then decides each candidate with the hot query's SQL, the caller's row
 * filter and the not-in-hot-storage test, together with the staged copies, in one statement. When
 * DuckDB's chunk ran out before the page was full, the page could lack rows that sort after the
 * chunk, so the chunk grows and the page is asked again.
 */
export async function queryArchived(
  db: Queryable,
  files: ArchiveFiles,
  schema: CompiledSchema,
  plan: SelectPlan,
  rowFilter: string | undefined,
  after: ArchivePosition | undefined,
): Promise<ArchivePage> {
  const entries = pruneFileSets(await fileSetsOf(db, schema.path), plan.where);
  if (entries.length === 0) return queryArchive(db, schema, plan, rowFilter, after ? { after } : {});
  const parameters: DuckParameter[] = [];
  const where =
    plan.where.length > 0
      ? plan.where.map((condition) => renderDuckCondition(condition, parameters)).join(' AND ')
      : undefined;
  let chunk = Math.max(64, (plan.limit + 1) * 2);
  for (;;) {
    const candidates = await files.candidates(entries, where, parameters, after, chunk);
    const current = await currentCopies(
      db,
      candidates.map((candidate) => ({ file_set_id: candidate.entry.file_set_id, record_id: candidate.id })),
    );
    const extra = candidates
      .filter((candidate) => current.has(`${candidate.entry.file_set_id}/${candidate.id}`))
      .map((candidate) => ({
        record_id: candidate.id,
        version: candidate.version,
        archived_at: candidate.archived_at,
        record: candidate.record,
      }));
    const page = await queryArchive(db, schema, plan, rowFilter, { extra, ...(after ? { after } : {}) });
    const lastCandidate = candidates[candidates.length - 1];
    if (candidates.length < chunk || lastCandidate === undefined) return page;
    const lastNeeded = page.positions[plan.limit];
    const lastCandidatePosition = { archived_at: lastCandidate.archived_at, id: lastCandidate.id };
    if (lastNeeded !== undefined && !isAfter(lastNeeded, lastCandidatePosition)) return page;
    chunk *= 4;
  }
}
