/**
 * The UPDATE that records a failed attempt of a job row (timers, connector jobs, the event outbox):
 * one retry fewer (never below `$4`, so a job can keep one), one attempt more, `last_error`, and —
 * with retries left — due again after an exponential backoff computed in SQL from the attempt
 * count: `$3 + min(max, base × 2^attempts)` ms. Parameters: `$1` id, `$2` message, `$3` now,
 * `$4` the minimum retries; `backoff` gives the base and cap as SQL (parameters or columns).
 * Returns `retries`.
 */
export function failedAttemptSql(table: string, backoff: { baseMs: string; maxMs: string }): string {
  return `UPDATE ${table}
          SET retries = greatest(retries - 1, $4::int),
              attempts = attempts + 1,
              last_error = $2,
              due_at = CASE WHEN greatest(retries - 1, $4::int) > 0
                            THEN $3::timestamptz
                                 + least((${backoff.maxMs})::float8, (${backoff.baseMs})::float8 * power(2, least(attempts, 30)))
                                   * interval '1 millisecond'
                            ELSE due_at END
          WHERE id = $1
          RETURNING retries`;
}
