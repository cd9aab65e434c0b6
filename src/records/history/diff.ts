/** What changed between two states of a record. */
export interface RecordDiff {
  added: Record<string, unknown>;
  changed: Record<string, { from: unknown; to: unknown }>;
  removed: Record<string, unknown>;
}

// Bookkeeping that differs between any two states; the diff is about the record's content.
const ignored = new Set(['id', 'created_at', 'created_by', 'updated_at', 'updated_by', 'version']);

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Compares two states (null: the record did not exist). A field is `added` when it goes from
 * null or absent to a value, `removed` when it goes from a value to null (the old value is shown),
 * `changed` when both sides hold different values. `deleted_at` takes part, so a soft-delete shows.
 */
export function diffStates(
  from: Record<string, unknown> | null,
  to: Record<string, unknown> | null,
): RecordDiff {
  const diff: RecordDiff = { added: {}, changed: {}, removed: {} };
  const before = from ?? {};
  const after = to ?? {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (ignored.has(key)) continue;
    const a = before[key] ?? null;
    const b = after[key] ?? null;
    if (same(a, b)) continue;
    if (a === null) diff.added[key] = b;
    else if (b === null) diff.removed[key] = a;
    else diff.changed[key] = { from: a, to: b };
  }
  return diff;
}
