/**
 * The SELECT that claims due job rows (timers, connector jobs, the event outbox): up to `$2` rows
 * due at `$1` with retries left, in `order`, locked `FOR UPDATE SKIP LOCKED` so executors on other
 * connections or instances take other rows. The locks last until the caller's transaction ends.
 */
export function claimDueSql(table: string, columns: string, order = 'due_at', where = 'TRUE'): string {
  return `SELECT ${columns} FROM ${table}
           WHERE due_at <= $1 AND retries > 0 AND ${where}
           ORDER BY ${order}
           LIMIT $2
           FOR UPDATE SKIP LOCKED`;
}
