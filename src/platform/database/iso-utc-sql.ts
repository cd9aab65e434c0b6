/**
 * PostgreSQL SQL that renders the timestamp expression `column` as ISO 8601 UTC text with
 * microseconds (`2026-01-31T12:00:00.123456Z`), the form the APIs show timestamps in.
 */
export function isoUtcSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}
