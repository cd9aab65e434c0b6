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
const cratesPath = 'acme/ops/fleet/crates/v1';
const cratesYaml = `
apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: crates-v1 }
spec:
  org: acme
  app: ops
  domain: fleet
  object: crates
  version: v1
  timeMachine: true
  fields:
    - { name: code, type: string, required: true }
  access:
    roles: { create: [admin], read: [admin], update: [admin], delete: [admin] }
  archive:
    afterDays: 30
    retainDays: 40
`;
const day = 86_400_000;
type Data<T> = { data: T; error?: { code: string }; code?: string };

// The S3 backend end to end, against s3rver (an S3 API server on local disk, started here).
describe('records archive on an S3-compatible store', () => {
  let s3: TestS3Server;
  let app: RecordsTestApp;
  const clock = new MovableClock();
  const job = (files = true) =>
    new ArchiveJob({
      pool: app.database.pool,
      registry: app.service.registry,
      clock,
      logger: captureLogs('fatal').logger,
      ...(files ? { files: app.service.archiveFiles } : {}),
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
      { resources: { 'parcels.yaml': yaml, 'crates.yaml': cratesYaml } },
    );
  });
  after(async () => {
    await app.close();
    await s3.close().catch(() => undefined);
  });

  test('retention rewrites a set in the bucket without expired records; erasure rewrites it without one record', async () => {
    const objects = async () => (await app.service.archiveFiles.store.list(`${cratesPath}/`)).sort();
    const crate = async (code: string) => {
      const response = await app.call('POST', `/api/${cratesPath}`, { body: { code } });
      assert.equal(response.statusCode, 201, response.body);
      return response.json<Data<{ id: string }>>().data.id;
    };
    const status = async (id: string) =>
      (await app.call('GET', `/api/${cratesPath}/${id}/archive`)).statusCode;
    // Archival instants within one UTC month, well past afterDays for records created now.
    const now = new Date();
    const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 3, 1, 10);
    const at = (days: number) => {
      clock.offset = monthStart + days * day - Date.now();
    };
    const early = [await crate('E1'), await crate('E2')];
    at(0);
    await job(false).runOnce();
    const late = [await crate('L1'), await crate('L2'), await crate('L3')];
    at(5);
    await job().runOnce();
    // Day 0 and day 5 copies went out together: one set, its four objects in the bucket.
    const firstSet = await objects();
    assert.equal(firstSet.length, 4, firstSet.join(' '));

    at(42);
    await job().runOnce();
    for (const id of early) assert.equal(await status(id), 404, 'past retainDays');
    for (const id of late) assert.equal(await status(id), 200);
    const rewritten = await objects();
    assert.equal(rewritten.length, 4);
    assert.equal(
      rewritten.filter((key) => firstSet.includes(key)).length,
      0,
      'the rewritten set replaced the old one in the bucket',
    );

    const erased = await app.call('POST', '/api/platform/erase', {
      body: { schema: cratesPath, id: late[1], reason: 'customer request' },
      roles: ['platform-admin'],
    });
    assert.equal(erased.statusCode, 200, erased.body);
    assert.equal(erased.json<Data<{ file_sets: number }>>().data.file_sets, 1);
    assert.equal(await status(late[1]!), 404);
    for (const id of [late[0]!, late[2]!]) assert.equal(await status(id), 200);
    const afterErasure = await objects();
    assert.equal(afterErasure.filter((key) => rewritten.includes(key)).length, 0);
    const verify = await app.call('POST', '/api/platform/audit/verify', {
      body: { schema: cratesPath, id: late[1] },
    });
    assert.equal(verify.json<Data<{ valid: boolean }>>().data.valid, true, verify.body);
    clock.offset = 0;
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
