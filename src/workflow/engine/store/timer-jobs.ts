import type { Queryable } from '../../../platform/database/queryable.js';
import type { TimerSpec } from '../../timers/index.js';
import { effectColumns, itemColumn, type InsertRows, type WaitRows } from './set-wise-write.js';

/*
 * `timer_jobs`: the armed timers of open timer waits, fired by the timer executor when due.
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

/** The engine's delete of the timers of the waits its calls closed. */
export const timerJobWaits: WaitRows = { cte: 'closed_timers', table: 'timer_jobs', waitColumn: 'wait_id' };

/** Deletes a timer job (one whose target is gone: a start timer of a disabled version). */
export async function deleteTimerJob(db: Queryable, id: string): Promise<void> {
  await db.query({
    name: 'workflow.timers.delete',
    text: 'DELETE FROM timer_jobs WHERE id = $1',
    values: [id],
  });
}
