import type { Pool } from '../../src/platform/database/pool.js';

/** Path of the bench schema under `/api`. */
export const benchArchivePath = 'bench/archive/ledger/entries/v1';

/**
 * The bench schema: eight fields of eight types, history and audit on, archived 30 days after the
 * last change. Each filterable field has its index in hot storage (table-ddl.ts), so the hot floor
 * of the selective query (`bucket eq`) is an index lookup, as in real use.
 */
export const benchArchiveYaml = `
apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: bench-entries-v1 }
spec:
  org: bench
  app: archive
  domain: ledger
  object: entries
  version: v1
  timeMachine: true
  fields:
    - { name: code, type: string, required: true, unique: true, filterable: true, sortable: true }
    - { name: status, type: enum, enum: [open, settled, disputed, void], required: true, filterable: true }
    - { name: bucket, type: integer, required: true, filterable: true }
    - { name: amount, type: number, filterable: true }
    - { name: paid, type: boolean, filterable: true }
    - { name: seen_at, type: timestamp, filterable: true }
    - { name: due_on, type: date, filterable: true }
    - { name: details, type: json }
  access:
    roles: { create: [admin], read: [admin], update: [admin], delete: [admin] }
  archive:
    afterDays: 30
`;

/** Records sharing one `bucket` value: the selective query's expected match count. */
export const recordsPerBucket = 10;

/**
 * Inserts records `from` … `to − 1` set-wise in one statement, as the table's owner: the change
 * trigger writes each record's CREATE history row and audit event as an API create would.
 */
export async function insertBenchRecords(
  pool: Pool,
  table: string,
  from: number,
  to: number,
  buckets: number,
): Promise<void> {
  await pool.query(
    `INSERT INTO ${table} (created_by, updated_by, code, status, bucket, amount, paid, seen_at, due_on, details)
     SELECT 'bench', 'bench', 'E-' || lpad(n::text, 8, '0'),
            (ARRAY['open','settled','disputed','void'])[1 + n % 4],
            n % $3, round((random() * 100000)::numeric, 2), n % 3 = 0,
            timestamptz '2026-01-01 00:00:00+00' + n * interval '7 seconds',
            date '2026-01-01' + n % 365,
            jsonb_build_object('line', n, 'tags', jsonb_build_array('a', CASE WHEN n % 2 = 0 THEN 'even' ELSE 'odd' END), 'note', 'bench entry ' || n)
     FROM generate_series($1::integer, $2::integer - 1) AS n`,
    [from, to, buckets],
  );
}
