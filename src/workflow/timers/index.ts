/**
 * Timers: schedules (ISO 8601 dates, durations, repeating intervals, cron), timer jobs and their
 * executor, the leader lease that decides which instance fires them (and fences its writes), and the leader's history
 * housekeeping. See docs/workflow/timers.md.
 */
export * from './schedule.js';
export * from './job-executor.js';
export * from './timer-executor.js';
export * from './timer-executor-sizing.js';
export * from './timer-metrics.js';
export * from './leader.js';
export * from './leader-lease-repository.js';
export * from './leader-fence.js';
export * from './leader-duties.js';
export * from './housekeeping.js';
