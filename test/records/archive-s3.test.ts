import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ArchiveJob } from '../../src/records/archive/archive-job.js';
import { startTestS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { captureLogs } from '../helpers/log-capture.js';
import { MovableClock } from './support/auth-fixtures.js';
import { startRecordsApp, type RecordsTestApp } from './support/records-app.js';

const path_ = 'acme/ops/fleet/parcels/v1';
const yaml = `
apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: parcels-v1 }
spec:
  org: acme
  app: ops
  domain: fleet
  object: parcels
  version: v1
  timeMachine: true
  fields:
    - { name: code, type: string, required: true }
    - { name: weight, type: integer, filterable: true }
  access:
    roles: { create: [admin], read: [admin], update: [admin], delete: [admin] }
  archive:
    afterDays: 30
`;
const day = 86_400_000;
type Data<T> = { data: T; error?: { code: string }; code?: string };

// The S3 backend end to end, against s3rver (an S3 API server on local disk, started here).
describe('records archive on an S3-compatible store', () => {
  let s3: TestS3Server;
  let app: RecordsTestApp;
  const clock = new MovableClock();
  const job = () =>
    new ArchiveJob({
      pool: app.database.pool,
      registry: app.service.registry,
      clock,
      logger: captureLogs('fatal').logger,
      files: app.service.archiveFiles,
    });
  before(async () => {
    s3 = await startTestS3Server('weft-records-archive');
    const cache = await mkdtemp(path.join(os.tmpdir(), 'weft-archive-cache-'));
    app = await startRecordsApp(
      {
        RECORDS_ARCHIVE_URL: `s3://${s3.bucket}/tenant-a`,
        RECORDS_ARCHIVE_S3_ENDPOINT: s3.endpoint,
        AWS_ACCESS_KEY_ID: 'S3RVER',
        AWS_SECRET_ACCESS_KEY: 'S3RVER',
        RECORDS_ARCHIVE_TIMEOUT_MS: '1000',
        RECORDS_ARCHIVE_CACHE_DIR: cache,
      },
      { resources: { 'parcels.yaml': yaml } },
    );
  });
  after(async () => {
    await app.close();
    await s3.close().catch(() => undefined);
  });

  test('archive, read, query and unarchive through the bucket; an unreachable bucket is 503 and loses nothing', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 6; index += 1) {
      const created = await app.call('POST', `/api/${path_}`, { body: { code: `P${index}`, weight: index } });
      assert.equal(created.statusCode, 201, created.body);
      ids.push(created.json<Data<{ id: string }>>().data.id);
    }
    clock.advance(31 * day);
    assert.equal(await job().runOnce(), 6);
    assert.equal(
      Number(
        (
          await app.database.pool.query<{ n: string }>(
            `SELECT count(*) AS n FROM records_archive.records WHERE schema_path = $1`,
            [path_],
          )
        ).rows[0]?.n,
      ),
      0,
      'every record moved to the bucket',
    );
    assert.ok(
      s3.requests.some(
        (request) => request.method === 'PUT' && request.url.includes('/tenant-a/acme/ops/fleet/parcels/v1/'),
      ),
      'the files went to the bucket under the prefix',
    );
    const read = await app.call('GET', `/api/${path_}/${ids[2]}/archive`);
    assert.equal(read.statusCode, 200, read.body);
    assert.equal(read.json<Data<{ code: string }>>().data.code, 'P2');
    const heavy = await app.call('POST', `/api/${path_}/archive/query`, {
      body: { where: { field: 'weight', op: 'gte', value: 4 } },
    });
    assert.deepEqual(
      heavy
        .json<Data<{ code: string }[]>>()
        .data.map((row) => row.code)
        .sort(),
      ['P4', 'P5'],
    );
    const back = await app.call('POST', `/api/${path_}/${ids[0]}/unarchive`, { body: { reason: 'found' } });
    assert.equal(back.statusCode, 200, back.body);

    // A second batch is staged, then the bucket goes away.
    const late = await app.call('POST', `/api/${path_}`, { body: { code: 'LATE', weight: 9 } });
    const lateId = late.json<Data<{ id: string }>>().data.id;
    await s3.close();
    clock.advance(31 * day);
    await assert.rejects(job().runOnce(), 'the export fails while the bucket is unreachable');
    const staged = await app.call('GET', `/api/${path_}/${lateId}/archive`);
    assert.equal(staged.statusCode, 200, 'the staged record is still readable: nothing was lost');
    const down = await app.call('GET', `/api/${path_}/${ids[3]}/archive`);
    assert.equal(down.statusCode, 503, down.body);
    assert.match(down.body, /ARCHIVE_STORE_UNAVAILABLE/);
    assert.doesNotMatch(down.body, /S3RVER/);
    const query = await app.call('POST', `/api/${path_}/archive/query`, { body: {} });
    assert.equal(query.statusCode, 503, query.body);
    const unarchive = await app.call('POST', `/api/${path_}/${ids[4]}/unarchive`, { body: { reason: 'x' } });
    assert.equal(unarchive.statusCode, 503, unarchive.body);
    assert.equal(
      Number(
        (
          await app.database.pool.query<{ n: string }>(
            `SELECT count(*) AS n FROM records_archive.files WHERE schema_path = $1`,
            [path_],
          )
        ).rows[0]?.n,
      ),
      1,
      'the manifest still lists the set; nothing was removed',
    );
  });
});
