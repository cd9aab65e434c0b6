/**
 * The SQL condition "the instance `idSql` names is not suspended" (true for no instance): what the
 * fetch-and-lock, the timer and connector claims and message and signal correlation add, so a
 * suspended instance's work waits (migration 0019).
 */
export function notSuspended(idSql: string): string {
  return `NOT EXISTS (SELECT 1 FROM process_instances si WHERE si.id = ${idSql} AND si.suspended)`;
}
