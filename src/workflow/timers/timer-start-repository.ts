import { parseTimerSchedule, type TimerSpec } from '../engine/schedule/schedule.js';
import type { Queryable } from '../../platform/database/queryable.js';

/**
 * Arms the timer start events of a deployed version: one `timer_jobs` row per start event, with no
 * instance. A start event that is already armed keeps its row (and its place in a cycle), so arming
 * twice is harmless. A schedule that will never fire again is skipped. Returns how many were armed.
 */
export async function armTimerStarts(
  db: Queryable,
  definition: { orgId: string; definitionId: string },
  starts: readonly { elementId: string; schedule: TimerSpec }[],
  now: Date,
): Promise<number> {
  const rows = starts.flatMap((start) => {
    const dueAt = parseTimerSchedule(start.schedule).first(now);
    return dueAt === null ? [] : [{ ...start, dueAt }];
  });
  if (rows.length === 0) return 0;
  const result = await db.query({
    name: 'workflow.timers.arm-starts',
    text: `INSERT INTO timer_jobs (org_id, definition_id, element_id, schedule, due_at, created_at)
           SELECT $1, $2, t.element_id, t.schedule, t.due_at, $6
           FROM unnest($3::text[], $4::jsonb[], $5::timestamptz[]) AS t(element_id, schedule, due_at)
           ON CONFLICT (definition_id, element_id) WHERE process_instance_id IS NULL DO NOTHING`,
    values: [
      definition.orgId,
      definition.definitionId,
      rows.map((row) => row.elementId),
      rows.map((row) => JSON.stringify(row.schedule)),
      rows.map((row) => row.dueAt),
      now,
    ],
  });
  return result.rowCount ?? 0;
}

/** Cancels the timer start jobs of one version (it was disabled). Returns how many went. */
export async function cancelTimerStarts(db: Queryable, definitionId: string): Promise<number> {
  const result = await db.query({
    name: 'workflow.timers.cancel-starts',
    text: `DELETE FROM timer_jobs WHERE definition_id = $1 AND process_instance_id IS NULL`,
    values: [definitionId],
  });
  return result.rowCount ?? 0;
}

/**
 * Cancels the timer start jobs of every version of a key but `keepDefinitionId` (a new version
 * replaces the previous ones' timer starts, as in Camunda and Zeebe). Returns how many went.
 */
export async function replaceTimerStartsOfKey(
  db: Queryable,
  key: { orgId: string; processKey: string },
  keepDefinitionId: string,
): Promise<number> {
  const result = await db.query({
    name: 'workflow.timers.replace-starts',
    text: `DELETE FROM timer_jobs t USING process_definitions d
           WHERE t.definition_id = d.id AND t.process_instance_id IS NULL
             AND d.org_id = $1 AND d.process_key = $2 AND d.id <> $3`,
    values: [key.orgId, key.processKey, keepDefinitionId],
  });
  return result.rowCount ?? 0;
}

/**
 * Locks the timer start jobs of every version of a key. A deploy calls it before it locks the key's
 * row, in the same order as a firing (timer row, then the key's counter), so the two cannot deadlock.
 */
export async function lockTimerStartsOfKey(
  db: Queryable,
  key: { orgId: string; processKey: string },
): Promise<void> {
  await db.query({
    name: 'workflow.timers.lock-starts',
    text: `SELECT t.id FROM timer_jobs t JOIN process_definitions d ON d.id = t.definition_id
           WHERE t.process_instance_id IS NULL AND d.org_id = $1 AND d.process_key = $2
           FOR UPDATE OF t`,
    values: [key.orgId, key.processKey],
  });
}
