import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { recordsDueForExport, stagedMonths } from '../../src/records/archive/archive-repository.js';
import { ArchiveJob } from '../../src/records/archive/archive-job.js';
import { dueBatches, exportStaged } from '../../src/records/archive/files/export-staged.js';
import { captureLogs } from '../helpers/log-capture.js';
import { MovableClock } from './support/auth-fixtures.js';
import { startRecordsApp, type RecordsTestApp } from './support/records-app.js';

const path = 'acme/ops/fleet/batches/v1';
const yaml = `
apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: batches-v1 }
spec:
  org: acme
  app: ops
  domain: fleet
  object: batches
  version: v1
  timeMachine: true
  fields:
    - { name: line, type: string, required: true }
  access:
    roles: { create: [admin], read: [admin], update: [admin], delete: [admin] }
  archive:
    afterDays: 30
`;
const day = 86_400_000;

describe('export of staged records in batches', () => {
  let app: RecordsTestApp;
  const clock = new MovableClock();
  const stage = () =>
    new ArchiveJob({
      pool: app.database.pool,
      registry: app.service.registry,
      clock,
      logger: captureLogs('fatal').logger,
    }).runOnce();
  before(async () => {
    app = await startRecordsApp({}, { resources: { 'batches.yaml': yaml } });
  });
  after(() => app.close());

  const create = async (count: number): Promise<string[]> => {
    const ids: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const response = await app.call('POST', `/api/${path}`, { body: { line: `line ${index}` } });
      assert.equal(response.statusCode, 201, response.body);
      ids.push(response.json<{ data: { id: string } }>().data.id);
    }
    return ids;
  };
  const monthOf = (date: Date) => date.toISOString().slice(0, 7);

  test('batches come month by month, oldest first, each in id order, without records brought back hot; the export moves exactly them', async () => {
    const first = await create(5);
    clock.advance(31 * day);
    assert.equal(await stage(), 5);
    const firstMonth = monthOf(clock.now());
    // More than a month later: a second month of staged copies.
    const second = await create(4);
    clock.advance(40 * day);
    assert.equal(await stage(), 4);
    const secondMonth = monthOf(clock.now());
    assert.notEqual(firstMonth, secondMonth);
    assert.deepEqual(await stagedMonths(app.database.pool, path), [firstMonth, secondMonth]);

    // One record of the first month is brought back: no longer due.
    const back = first[2]!;
    const unarchived = await app.call('POST', `/api/${path}/${back}/unarchive`, {
      body: { reason: 'check' },
    });
    assert.equal(unarchived.statusCode, 200, unarchived.body);

    const schema = app.service.registry.resolve(path);
    const batches: { month: string; ids: string[] }[] = [];
    for await (const batch of dueBatches(app.database.pool, schema, 2)) batches.push(batch);
    const sorted = (ids: string[]) => [...ids].sort();
    const dueFirst = sorted(first.filter((id) => id !== back));
    assert.deepEqual(batches, [
      { month: firstMonth, ids: dueFirst.slice(0, 2) },
      { month: firstMonth, ids: dueFirst.slice(2, 4) },
      { month: secondMonth, ids: sorted(second).slice(0, 2) },
      { month: secondMonth, ids: sorted(second).slice(2, 4) },
    ]);

    // Staged ids judged two at a time: the record brought back is passed over, pages still full.
    const windowed = async (month: string, after: string | undefined, limit: number) =>
      recordsDueForExport(app.database.pool, schema, month, after, limit, 2);
    assert.deepEqual(await windowed(firstMonth, undefined, 3), dueFirst.slice(0, 3));
    assert.deepEqual(await windowed(firstMonth, dueFirst[2], 3), dueFirst.slice(3));
    assert.deepEqual(await windowed(secondMonth, undefined, 10), sorted(second));

    // At most two sets, then the rest: every due record lands in exactly one set of its month.
    const files = app.service.archiveFiles;
    assert.equal(await exportStaged(app.database.pool, files, schema, 2, 2), 4);
    assert.equal(await exportStaged(app.database.pool, files, schema, 2), 4);
    const sets = await app.database.pool.query<{ month: string; record_count: number }>(
      `SELECT to_char(month, 'YYYY-MM') AS month, record_count FROM records_archive.files WHERE schema_path = $1 ORDER BY month, record_count`,
      [path],
    );
    assert.deepEqual(
      sets.rows.map((row) => [row.month, row.record_count]),
      [
        [firstMonth, 2],
        [firstMonth, 2],
        [secondMonth, 2],
        [secondMonth, 2],
      ],
    );
    // Only the copy of the record brought back stays staged: it is hot again, not due.
    const left = await app.database.pool.query<{ record_id: string }>(
      `SELECT DISTINCT record_id::text FROM records_archive.records WHERE schema_path = $1`,
      [path],
    );
    assert.deepEqual(
      left.rows.map((row) => row.record_id),
      [back],
    );
    for await (const batch of dueBatches(app.database.pool, schema, 2))
      assert.fail(`nothing is due: ${batch.ids.join(', ')}`);
  });
});
