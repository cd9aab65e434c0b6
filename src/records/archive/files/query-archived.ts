import type { Queryable } from '../../../platform/database/queryable.js';
import type { SelectPlan } from '../../records/select-plan.js';
import type { CompiledSchema } from '../../schemas/compiled-schema.js';
import { queryArchive, type ArchivePage, type ArchivePosition } from '../archive-repository.js';
import type { ArchiveFiles } from './archive-files.js';
import { renderDuckCondition } from './duck-condition.js';
import type { DuckParameter } from './duck-engine.js';
import { currentCopies, fileSetsOf, type FileSetEntry } from './manifest-repository.js';
import { pruneFileSets } from './prune-file-sets.js';

/** Whether position `a` comes after `b` in the archive order (newest archival first, then id). */
function isAfter(a: ArchivePosition, b: ArchivePosition): boolean {
  return a.archived_at < b.archived_at || (a.archived_at === b.archived_at && a.id > b.id);
}

/** The sets that may hold a row after `after`: a set archived wholly after it holds none. */
function setsAfter(entries: FileSetEntry[], after: ArchivePosition | undefined): FileSetEntry[] {
  return after === undefined
    ? entries
    : entries.filter((entry) => entry.min_archived_at <= after.archived_at);
}

/**
 * A page of the archive query over staged copies and the schema's files. DuckDB reads the file
 * sets the manifest cannot rule out and returns candidates (a superset, duck-condition.ts) in the
 * query's order, a fixed chunk at a time; PostgreSQL then decides each chunk's candidates with the
 * hot query's SQL, the caller's row filter and the not-in-hot-storage test, together with the
 * staged copies, in one statement. Rows up to the chunk's last candidate are final; when the page
 * (`limit` + 1, for `hasMore`) is not full yet, the next chunk starts after that candidate, so
 * memory stays bounded however rarely the candidates pass.
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
  const chunk = Math.max(1, Math.min(files.candidateChunk, Math.max(64, (plan.limit + 1) * 2)));
  const wanted = plan.limit + 1;
  const rows: string[] = [];
  const positions: ArchivePosition[] = [];
  let from = after;
  for (;;) {
    const candidates = await files.candidates(setsAfter(entries, from), where, parameters, from, chunk);
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
    const remaining = wanted - rows.length;
    const page = await queryArchive(db, schema, { ...plan, limit: remaining }, rowFilter, {
      extra,
      ...(from ? { after: from } : {}),
    });
    const last = candidates[candidates.length - 1];
    // A full chunk leaves file rows after its last candidate unread: only rows up to it are final.
    const bound =
      candidates.length === chunk && last ? { archived_at: last.archived_at, id: last.id } : undefined;
    for (let index = 0; index < page.rows.length && rows.length < wanted; index += 1) {
      const position = page.positions[index]!;
      if (bound !== undefined && isAfter(position, bound)) break;
      rows.push(page.rows[index]!);
      positions.push(position);
    }
    if (bound === undefined || rows.length === wanted) break;
    from = bound;
  }
  return { rows: rows.slice(0, plan.limit), hasMore: rows.length > plan.limit, positions };
}
