import { notSuspended } from './not-suspended.js';
import { parseTimerSchedule, type TimerSpec } from '../schedule/schedule.js';
import { claimDueSql } from '../../../platform/jobs/claim-due-sql.js';
import { failedAttemptSql } from '../../../platform/jobs/failed-attempt-sql.js';
import type { Queryable } from '../../../platform/database/queryable.js';
import {
  effectColumns,
  itemColumn,
  type InsertRows,
  type WaitRows,
  type MovedRows,
} from './set-wise-write.js';

/*
 * `timer_jobs`: armed timers, fired by the timer executor when due. An instance's timer (a catch
 * or boundary event) is written by the engine's set-wise write; a timer start event's is armed by
 * its deployment, with no instance.
 */

/** A timer wait armed: its schedule as text and its first due time. */
export interface ArmedTimer {
  waitId: string;
  elementId: string;
  schedule: TimerSpec;
  dueAt: Date;
}

/** The engine's insert of the timers its calls armed. */
export const timerJobInserts: InsertRows<ArmedTimer> = {
  cte: 'new_timers',
  table: 'timer_jobs',
  columns: [
    effectColumns.orgId,
    effectColumns.instanceId,
    effectColumns.now,
    itemColumn('wait_id', 'uuid', (timer) => timer.waitId),
    itemColumn('element_id', 'text', (timer) => timer.elementId),
    itemColumn('schedule', 'jsonb', (timer) => JSON.stringify(timer.schedule)),
    itemColumn('due_at', 'timestamptz', (timer) => timer.dueAt),
  ],
  computed: { created_at: 'r.now' },
};

/** The rows of armed timers kept by a migration, pointed at their new element. */
export const timerJobMoves: MovedRows = {
  cte: 'moved_timers',
  table: 'timer_jobs',
  idColumn: 'wait_id',
  elementColumn: 'element_id',
};

/** The engine's delete of the timers of the waits its calls closed. */
export const timerJobWaits: WaitRows = { cte: 'closed_timers', table: 'timer_jobs', waitColumn: 'wait_id' };

/** One armed timer (a row of `timer_jobs`). */
export interface TimerJob {
  id: string;
  orgId: string;
  /** The instance of a catch or boundary timer; null for a timer start event. */
  processInstanceId: string | null;
  /** The deployed version of a timer start event; may also be set for an instance's timer. */
  definitionId: string | null;
  /** The engine wait this timer completes; null for a timer start event. */
  waitId: string | null;
  elementId: string;
  schedule: TimerSpec;
  dueAt: Date;
  /** Firings so far (not counting the one being handled). */
  firedCount: number;
  retries: number;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
}

/** What the engine gives to arm a timer. */
export interface NewTimerJob {
  orgId: string;
  processInstanceId?: string | null;
  definitionId?: string | null;
  waitId?: string | null;
  elementId: string;
  schedule: TimerSpec;
  /** Attempts per firing before `onError`; 3 when not given. */
  retries?: number;
}

/** Retry delays of a failed firing: `min(maxMs, baseMs × 2^(failures so far))`. */
export interface TimerBackoff {
  baseMs: number;
  maxMs: number;
}

/** 5 s, 10 s, 20 s… up to 10 minutes. */
export const defaultTimerBackoff: TimerBackoff = { baseMs: 5_000, maxMs: 600_000 };

interface TimerJobRow {
  id: string;
  org_id: string;
  process_instance_id: string | null;
  definition_id: string | null;
  wait_id: string | null;
  element_id: string;
  schedule: TimerSpec;
  due_at: Date;
  fired_count: number;
  retries: number;
  attempts: number;
  last_error: string | null;
  created_at: Date;
}

const columns = `id, org_id, process_instance_id, definition_id, wait_id, element_id, schedule, due_at,
  fired_count, retries, attempts, last_error, created_at`;

function toJob(row: TimerJobRow): TimerJob {
  return {
    id: row.id,
    orgId: row.org_id,
    processInstanceId: row.process_instance_id,
    definitionId: row.definition_id,
    waitId: row.wait_id,
    elementId: row.element_id,
    schedule: row.schedule,
    dueAt: row.due_at,
    firedCount: row.fired_count,
    retries: row.retries,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at,
  };
}

/**
 * Arms a timer at `now`: parses its schedule (throwing InvalidTimerError) and inserts the row due at
 * the schedule's first occurrence. Returns null, inserting nothing, when the schedule will never fire
 * (a cycle anchored in the past whose occurrences are all over).
 */
export async function insertTimerJob(db: Queryable, job: NewTimerJob, now: Date): Promise<TimerJob | null> {
  const schedule = parseTimerSchedule(job.schedule);
  const dueAt = schedule.first(now);
  if (dueAt === null) return null;
  const { rows } = await db.query<TimerJobRow>({
    name: 'workflow.timers.insert',
    text: `INSERT INTO timer_jobs (org_id, process_instance_id, definition_id, wait_id, element_id, schedule,
             due_at, retries, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
           RETURNING ${columns}`,
    values: [
      job.orgId,
      job.processInstanceId ?? null,
      job.definitionId ?? null,
      job.waitId ?? null,
      job.elementId,
      JSON.stringify(schedule.spec),
      dueAt,
      job.retries ?? 3,
      now,
    ],
  });
  return toJob(rows[0] as TimerJobRow);
}

/**
 * Locks up to `limit` timers due at `now` with attempts left, earliest first, skipping rows another
 * transaction holds. The locks last until the caller's transaction ends.
 */
export async function claimDueTimerJobs(db: Queryable, now: Date, limit: number): Promise<TimerJob[]> {
  const { rows } = await db.query<TimerJobRow>({
    name: 'workflow.timers.claim',
    // A suspended instance's timers, and a suspended version's timer starts, stay due until resumed.
    text: claimDueSql(
      'timer_jobs',
      columns,
      'due_at',
      `${notSuspended('timer_jobs.process_instance_id')}
       AND NOT EXISTS (SELECT 1 FROM process_definitions sd
                       WHERE timer_jobs.process_instance_id IS NULL AND sd.id = timer_jobs.definition_id AND sd.suspended)`,
    ),
    values: [now, limit],
  });
  return rows.map(toJob);
}

/**
 * The earliest due time after `now` of a timer with attempts left (null: none), from the claim's
 * index; the executor's idle loops sleep until then.
 */
export async function nextTimerDue(db: Queryable, now: Date): Promise<Date | null> {
  const { rows } = await db.query<{ due_at: Date | null }>({
    name: 'workflow.timers.next-due',
    text: `SELECT min(due_at) AS due_at FROM timer_jobs WHERE due_at > $1 AND retries > 0`,
    values: [now],
  });
  return rows[0]?.due_at ?? null;
}

/**
 * Records a successful firing of a claimed timer: a cycle with occurrences left is re-armed for the
 * next one, anything else is deleted. Occurrences missed while no leader ran are not replayed: when
 * the next one is already past, the timer skips to the first one after `now`. A row the handler
 * deleted (its wait closed) stays deleted. Returns the next due time, or null when the timer is done.
 */
export async function completeTimerFiring(db: Queryable, job: TimerJob, now: Date): Promise<Date | null> {
  const schedule = parseTimerSchedule(job.schedule);
  const fired = job.firedCount + 1;
  let next = schedule.next(job.dueAt, fired);
  if (next !== null && next.getTime() <= now.getTime()) next = schedule.next(now, fired);
  if (next === null) {
    await deleteTimerJob(db, job.id);
    return null;
  }
  await db.query({
    name: 'workflow.timers.rearm',
    text: `UPDATE timer_jobs
           SET due_at = $2, fired_count = fired_count + 1, retries = retries + attempts, attempts = 0,
               last_error = NULL
           WHERE id = $1`,
    values: [job.id, next],
  });
  return next;
}

/**
 * Records the successful firings of several claimed timers: the one-shot ones (and cycles with
 * nothing left) are deleted in one statement, the cycles re-armed one by one as `completeTimerFiring`
 * does.
 */
export async function completeTimerFirings(
  db: Queryable,
  jobs: readonly TimerJob[],
  now: Date,
): Promise<void> {
  const done: string[] = [];
  for (const job of jobs) {
    if (job.schedule.kind === 'cycle') await completeTimerFiring(db, job, now);
    else done.push(job.id);
  }
  if (done.length === 0) return;
  await db.query({
    name: 'workflow.timers.delete-many',
    text: `DELETE FROM timer_jobs WHERE id = ANY($1::uuid[])`,
    values: [done],
  });
}

/**
 * Records a failed attempt: one retry fewer and, while some are left, due again after the backoff
 * (computed here in SQL from the failures so far). At zero the row keeps its due time and is not
 * claimed again until `setTimerJobRetries`. With `keepOne` the count stops at 1 (used when the
 * incident could not be raised, so the timer must not park silently). Returns the retries left.
 */
export async function recordTimerFailure(
  db: Queryable,
  job: TimerJob,
  message: string,
  now: Date,
  backoff: TimerBackoff,
  keepOne = false,
): Promise<number> {
  const { rows } = await db.query<{ retries: number }>({
    name: 'workflow.timers.fail',
    text: failedAttemptSql('timer_jobs', { baseMs: '$5', maxMs: '$6' }),
    values: [job.id, message.slice(0, 4000), now, keepOne ? 1 : 0, backoff.baseMs, backoff.maxMs],
  });
  return rows[0]?.retries ?? 0;
}

/** Gives a parked timer attempts again (an incident was resolved); it is due at once if past due. */
export async function setTimerJobRetries(db: Queryable, id: string, retries: number): Promise<boolean> {
  const result = await db.query({
    name: 'workflow.timers.set-retries',
    text: `UPDATE timer_jobs SET retries = $2, attempts = 0 WHERE id = $1`,
    values: [id, retries],
  });
  return result.rowCount === 1;
}

/** A timer by id (for tests and operators). */
export async function findTimerJob(db: Queryable, id: string): Promise<TimerJob | null> {
  const { rows } = await db.query<TimerJobRow>({
    name: 'workflow.timers.find',
    text: `SELECT ${columns} FROM timer_jobs WHERE id = $1`,
    values: [id],
  });
  return rows[0] ? toJob(rows[0]) : null;
}

/** Deletes a timer job (one whose target is gone: a start timer of a disabled version). */
export async function deleteTimerJob(db: Queryable, id: string): Promise<void> {
  await db.query({
    name: 'workflow.timers.delete',
    text: 'DELETE FROM timer_jobs WHERE id = $1',
    values: [id],
  });
}

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
