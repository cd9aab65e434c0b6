import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { Registry } from 'prom-client';
import { loadConfig, type ArchiveStoreConfig } from '../../src/platform/config/index.js';
import { createHttpServer as createServiceHttpServer } from '../../src/platform/http/create-server.js';
import { createObjectStore } from '../../src/records/archive/store/create-object-store.js';
import { LocalObjectStore } from '../../src/records/archive/store/local-object-store.js';
import {
  ObjectStoreUnavailableError,
  type ObjectStore,
} from '../../src/records/archive/store/object-store.js';
import { recordsErrorCatalogue } from '../../src/records/errors.js';
import { captureLogs } from '../helpers/log-capture.js';
import { freePort } from '../helpers/ports.js';
import { startTestS3Server, type TestS3Server } from '../helpers/s3-server.js';

const accessKeyId = 'AKIATESTACCESSKEY0001';
const secretAccessKey = 'test-secret-access-key-never-shown';
const sessionToken = 'test-session-token-never-shown';

let scratch: string;
let s3: TestS3Server;

before(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'weft-archive-store-'));
  s3 = await startTestS3Server();
});
after(async () => {
  await s3.close();
  await rm(scratch, { recursive: true, force: true });
});

/** The archive section of a config read from these variables, as at boot. */
function archiveConfig(variables: Record<string, string>): ArchiveStoreConfig {
  return loadConfig({ WEFT_DATA_DIR: scratch, ...variables }).records.archive;
}

let stores = 0;
function s3Variables(extra: Record<string, string> = {}): Record<string, string> {
  stores += 1;
  return {
    RECORDS_ARCHIVE_URL: `s3://${s3.bucket}/tenant-${stores}/archive`,
    RECORDS_ARCHIVE_S3_ENDPOINT: s3.endpoint,
    // The only credentials s3rver knows.
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    RECORDS_ARCHIVE_TIMEOUT_MS: '5000',
    RECORDS_ARCHIVE_CACHE_DIR: path.join(scratch, `cache-${stores}`),
    ...extra,
  };
}

const backends: { name: string; open: () => ObjectStore }[] = [
  {
    name: 'local folder',
    open: () =>
      createObjectStore(
        archiveConfig({ RECORDS_ARCHIVE_URL: pathToFileURL(path.join(scratch, `root-${++stores}`)).href }),
      ),
  },
  { name: 'S3 (s3rver)', open: () => createObjectStore(archiveConfig(s3Variables())) },
];

let files = 0;
async function fileOf(bytes: Buffer): Promise<string> {
  const file = path.join(scratch, `input-${++files}.bin`);
  await writeFile(file, bytes);
  return file;
}

// Every byte value, then random bytes: a text-mode or encoding slip would show.
function binary(size: number): Buffer {
  return Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, byte) => byte)), randomBytes(size)]);
}

const badKeys = [
  '',
  '/abs/key',
  'a//b',
  '../x',
  'a/../b',
  'a/./b',
  'a\\b',
  'a/',
  '.hidden',
  'a b',
  'clé',
  'a?b',
];

const cases: { name: string; run: (store: ObjectStore) => Promise<void> }[] = [
  {
    name: 'put, get, localPath, list and delete round-trip binary files byte for byte',
    async run(store) {
      const key = 'orders/2026-11/0b6c7a52-4f7e-4c3e-9a51-7d1e2c3b4a5f/records.parquet';
      const bytes = binary(300_000);
      await store.putFile(key, await fileOf(bytes));
      assert.deepEqual(await store.get(key), bytes);
      const local = await store.localPath(key);
      assert.ok(local !== undefined && path.isAbsolute(local));
      assert.deepEqual(await readFile(local), bytes);
      assert.deepEqual(await store.list('orders/'), [key]);
      await store.delete(key);
      assert.equal(await store.get(key), undefined);
      assert.equal(await store.localPath(key), undefined);
      assert.deepEqual(await store.list('orders/'), []);
    },
  },
  {
    name: 'a schema path is a valid key prefix, and an empty file is an object',
    async run(store) {
      const key = 'acme/support/desk/tickets/v1/year=2026/part-0.parquet';
      await store.putFile(key, await fileOf(Buffer.alloc(0)));
      assert.deepEqual(await store.get(key), Buffer.alloc(0));
      assert.deepEqual(await readFile((await store.localPath(key)) ?? ''), Buffer.alloc(0));
    },
  },
  {
    name: 'putFile overwrites, and localPath then holds the new bytes',
    async run(store) {
      const key = 'overwrite/records.parquet';
      await store.putFile(key, await fileOf(binary(1000)));
      assert.ok((await store.localPath(key)) !== undefined);
      const second = binary(2000);
      await store.putFile(key, await fileOf(second));
      assert.deepEqual(await store.get(key), second);
      assert.deepEqual(await readFile((await store.localPath(key)) ?? ''), second);
    },
  },
  {
    name: 'missing keys: get and localPath give undefined, delete is no error, list is empty',
    async run(store) {
      await store.putFile('present/a.bin', await fileOf(binary(10)));
      assert.equal(await store.get('absent/a.bin'), undefined);
      assert.equal(await store.localPath('absent/a.bin'), undefined);
      assert.equal(await store.get('present'), undefined, 'a folder-like prefix is no object');
      assert.equal(await store.localPath('present'), undefined);
      await store.delete('absent/a.bin');
      assert.deepEqual(await store.list('absent/'), []);
    },
  },
  {
    name: 'bad keys are refused with a TypeError before anything is touched',
    async run(store) {
      const file = await fileOf(binary(10));
      for (const key of badKeys) {
        await assert.rejects(store.putFile(key, file), TypeError, `putFile ${key}`);
        await assert.rejects(store.get(key), TypeError, `get ${key}`);
        await assert.rejects(store.localPath(key), TypeError, `localPath ${key}`);
        await assert.rejects(store.delete(key), TypeError, `delete ${key}`);
      }
      for (const prefix of ['../', '/abs', 'a//', 'a\\', '.x', 'a/.x'])
        await assert.rejects(store.list(prefix), TypeError, `list ${prefix}`);
    },
  },
  {
    name: 'list returns every key under a prefix, sorted, a prefix may end inside a segment',
    async run(store) {
      const keys = [
        'orders/2026-11/b/records.parquet',
        'orders/2026-10/a/records.parquet',
        'orders/2026-11/a/records.parquet',
        'orders/2026-09/z/records.parquet',
        'orders-old/2026-11/records.parquet',
        'invoices/2026-11/records.parquet',
      ];
      const file = await fileOf(binary(10));
      for (const key of keys) await store.putFile(key, file);
      assert.deepEqual(await store.list('orders/2026-1'), [
        'orders/2026-10/a/records.parquet',
        'orders/2026-11/a/records.parquet',
        'orders/2026-11/b/records.parquet',
      ]);
      assert.deepEqual(
        await store.list('orders'),
        [...keys.filter((key) => key.startsWith('orders'))].sort(),
      );
      assert.deepEqual(await store.list(''), [...keys].sort());
    },
  },
  {
    name: 'a reader never sees a partial object while a large one is written',
    async run(store) {
      const key = 'atomic/records.parquet';
      const first = Buffer.alloc(8 * 1024 * 1024, 0x11);
      const second = Buffer.alloc(12 * 1024 * 1024, 0x22);
      const [firstFile, secondFile] = [await fileOf(first), await fileOf(second)];
      await store.putFile(key, firstFile);
      let writing = true;
      const writer = (async () => {
        try {
          for (let round = 0; round < 3; round += 1) {
            await store.putFile(key, secondFile);
            await store.putFile(key, firstFile);
          }
        } finally {
          writing = false;
        }
      })();
      let reads = 0;
      while (writing) {
        const [bytes, local] = await Promise.all([store.get(key), store.localPath(key)]);
        for (const seen of [bytes, local === undefined ? undefined : await readFile(local)]) {
          assert.ok(seen !== undefined, 'the object never disappears while it is overwritten');
          assert.ok(seen.equals(first) || seen.equals(second), `a read saw ${seen.length} mixed bytes`);
        }
        reads += 1;
      }
      await writer;
      assert.ok(reads > 0);
    },
  },
];

for (const backend of backends) {
  describe(`archive object store: ${backend.name}`, () => {
    for (const { name, run } of cases) test(name, () => run(backend.open()));
  });
}

describe('archive object store: local folder only', () => {
  test('sweepTemporary removes temporary files of dead writes past the age, and nothing else', async () => {
    const root = path.join(scratch, `sweep-${++stores}`);
    const store = new LocalObjectStore(root);
    const key = 'orders/2026-11/0b6c7a52-4f7e-4c3e-9a51-7d1e2c3b4a5f/records.parquet';
    await store.putFile(key, await fileOf(binary(1000)));
    const folder = path.dirname(path.join(root, key));
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    const stale = path.join(folder, '.tmp-0123456789abcdef');
    const fresh = path.join(folder, '.tmp-fedcba9876543210');
    const staleAtRoot = path.join(root, '.tmp-00000000aaaaaaaa');
    for (const file of [stale, fresh, staleAtRoot]) await writeFile(file, 'torn');
    await utimes(stale, twoHoursAgo, twoHoursAgo);
    await utimes(staleAtRoot, twoHoursAgo, twoHoursAgo);
    // An old object is not a temporary file.
    await utimes(path.join(root, key), twoHoursAgo, twoHoursAgo);

    assert.equal(await store.sweepTemporary(3_600_000), 2);
    assert.deepEqual((await readdir(folder)).sort(), ['.tmp-fedcba9876543210', 'records.parquet']);
    assert.deepEqual(await readdir(root), ['orders']);
    assert.deepEqual(await store.list(''), [key]);
    assert.equal((await store.get(key))?.length, 1256);
    // The walk is not repeated within ten minutes for an hour's age; a shorter age sweeps sooner.
    await utimes(fresh, twoHoursAgo, twoHoursAgo);
    assert.equal(await store.sweepTemporary(3_600_000), 0);
    assert.equal(await store.sweepTemporary(0), 1);
    assert.deepEqual(await readdir(folder), ['records.parquet']);
  });

  test('an empty or missing root sweeps nothing', async () => {
    assert.equal(await new LocalObjectStore(path.join(scratch, `absent-${++stores}`)).sweepTemporary(0), 0);
  });
});

describe('archive object store: S3 only', () => {
  test('location names the bucket and prefix, never the credentials', () => {
    const store = createObjectStore(archiveConfig(s3Variables()));
    assert.match(store.location, /^s3:\/\/weft-archive-test\/tenant-\d+\/archive$/);
    assert.ok(!store.location.includes(accessKeyId) && !store.location.includes(secretAccessKey));
  });

  test('list reads every page past 1000 keys', async () => {
    const store = createObjectStore(archiveConfig(s3Variables()));
    const file = await fileOf(Buffer.from('x'));
    const keys = Array.from({ length: 1001 }, (_, index) => `paged/${String(index).padStart(5, '0')}.bin`);
    for (let start = 0; start < keys.length; start += 50)
      await Promise.all(keys.slice(start, start + 50).map((key) => store.putFile(key, file)));
    const listings = () => s3.requests.filter((request) => /[?&]prefix=/.test(request.url)).length;
    const before = listings();
    assert.deepEqual(await store.list('paged/'), keys);
    const pages = listings() - before;
    assert.ok(pages >= 2, `one list call read ${pages} pages`);
  });

  test('the download cache stays within its size, removing the least recently used copy', async () => {
    const variables = s3Variables({ RECORDS_ARCHIVE_CACHE_MB: '1' });
    const store = createObjectStore(archiveConfig(variables));
    const cacheDir = variables.RECORDS_ARCHIVE_CACHE_DIR ?? '';
    const objects = { a: binary(400_000), b: binary(400_000), c: binary(400_000) };
    for (const [name, bytes] of Object.entries(objects))
      await store.putFile(`lru/${name}.bin`, await fileOf(bytes));
    const a = await store.localPath('lru/a.bin');
    const b = await store.localPath('lru/b.bin');
    assert.equal(await store.localPath('lru/a.bin'), a, 'a is used again: b is now the oldest');
    const c = await store.localPath('lru/c.bin');
    const held = await readdir(cacheDir);
    assert.deepEqual(held.sort(), [path.basename(a ?? ''), path.basename(c ?? '')].sort());
    assert.ok(!held.includes(path.basename(b ?? '')));
    assert.deepEqual(await readFile(b ?? '').catch(() => 'gone'), 'gone');
    assert.deepEqual(await readFile((await store.localPath('lru/b.bin')) ?? ''), objects.b, 'fetched again');
    assert.ok((await readdir(cacheDir)).length <= 2, 'about 1 MB: two copies of 400 kB');

    // A later process adopts the copies and drops torn temporary files.
    await writeFile(path.join(cacheDir, '.tmp-torn'), 'partial');
    const restarted = createObjectStore(archiveConfig(variables));
    assert.deepEqual(await readFile((await restarted.localPath('lru/c.bin')) ?? ''), objects.c);
    assert.ok(!(await readdir(cacheDir)).includes('.tmp-torn'));

    await store.delete('lru/b.bin');
    assert.ok((await readdir(cacheDir)).length <= 2);
  });

  test('concurrent localPath calls of one key share one download', async () => {
    const store = createObjectStore(archiveConfig(s3Variables()));
    const key = 'concurrent/records.parquet';
    const bytes = binary(2_000_000);
    await store.putFile(key, await fileOf(bytes));
    const gets = () => s3.requests.filter((r) => r.method === 'GET' && r.url.includes(key)).length;
    const before = gets();
    const paths = await Promise.all(Array.from({ length: 6 }, () => store.localPath(key)));
    assert.equal(new Set(paths).size, 1);
    assert.equal(gets() - before, 1);
    assert.deepEqual(await readFile(paths[0] ?? ''), bytes);
    const again = await Promise.all([store.localPath(key), store.localPath(key)]);
    assert.deepEqual(again, [paths[0], paths[0]]);
  });

  test('an upload the store holds shorter than the file is an error', async () => {
    // Acknowledges every PUT, then reports one byte less than was sent.
    let sent = 0;
    const server = await listen(
      createHttpServer((request, response) => {
        request.on('data', (chunk: Buffer) => (sent += chunk.length));
        request.on('end', () => {
          if (request.method === 'HEAD') response.writeHead(200, { 'content-length': String(sent - 1) });
          else response.writeHead(200, { etag: '"0"' });
          response.end();
        });
      }),
    );
    try {
      const store = createObjectStore(
        archiveConfig(s3Variables({ RECORDS_ARCHIVE_S3_ENDPOINT: server.url })),
      );
      await assert.rejects(store.putFile('short/records.parquet', await fileOf(binary(5000))), /bytes/);
    } finally {
      await server.close();
    }
  });

  test('a download that does not match the SHA-256 stored with the object is read again, then refused', async () => {
    let gets = 0;
    const body = Buffer.from('not the bytes that were uploaded');
    const server = await listen(
      createHttpServer((request, response) => {
        request.resume();
        gets += 1;
        response.writeHead(200, {
          'content-length': String(body.length),
          etag: '"0123456789abcdef0123456789abcdef"',
          'x-amz-meta-sha256': '0'.repeat(64),
        });
        response.end(body);
      }),
    );
    try {
      const variables = s3Variables({ RECORDS_ARCHIVE_S3_ENDPOINT: server.url });
      const store = createObjectStore(archiveConfig(variables));
      await assert.rejects(store.get('torn/records.parquet'), ObjectStoreUnavailableError);
      assert.equal(gets, 3);
      await assert.rejects(store.localPath('torn/records.parquet'), ObjectStoreUnavailableError);
      assert.deepEqual(await readdir(variables.RECORDS_ARCHIVE_CACHE_DIR ?? ''), [], 'no copy is kept');
    } finally {
      await server.close();
    }
  });
});

describe('archive object store: an unavailable S3', () => {
  const timeoutMs = 300;
  // Three attempts, each waiting at most the timeout, and the backoff between them.
  const bound = 3 * timeoutMs + 3000;

  async function assertUnavailable(store: ObjectStore): Promise<void> {
    const file = await fileOf(binary(100));
    const operations: [string, () => Promise<unknown>][] = [
      ['putFile', () => store.putFile('down/a.bin', file)],
      ['get', () => store.get('down/a.bin')],
      ['localPath', () => store.localPath('down/a.bin')],
      ['delete', () => store.delete('down/a.bin')],
      ['list', () => store.list('down/')],
    ];
    for (const [name, operation] of operations) {
      const started = Date.now();
      await assert.rejects(operation(), (error: Error) => {
        assert.ok(error instanceof ObjectStoreUnavailableError, `${name}: ${error.name} ${error.message}`);
        for (const secret of [accessKeyId, secretAccessKey, sessionToken])
          assert.ok(!`${error.message} ${inspect(error)}`.includes(secret), `${name} shows a credential`);
        return true;
      });
      assert.ok(Date.now() - started < bound, `${name} took ${Date.now() - started} ms`);
    }
  }

  const unavailableVariables = (endpoint: string) =>
    s3Variables({
      RECORDS_ARCHIVE_S3_ENDPOINT: endpoint,
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
      AWS_SESSION_TOKEN: sessionToken,
      RECORDS_ARCHIVE_TIMEOUT_MS: String(timeoutMs),
    });

  test('a closed port', async () => {
    const port = await freePort();
    await assertUnavailable(
      createObjectStore(archiveConfig(unavailableVariables(`http://127.0.0.1:${port}`))),
    );
  });

  test('a server that accepts connections and never answers', async () => {
    const sockets = new Set<Socket>();
    const hanging = createTcpServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.resume();
    });
    const server = await listen(hanging);
    try {
      await assertUnavailable(createObjectStore(archiveConfig(unavailableVariables(server.url))));
    } finally {
      for (const socket of sockets) socket.destroy();
      await server.close();
    }
  });

  test('a server answering 503 SlowDown; a refusal (403) is not unavailability', async () => {
    let status = 503;
    const server = await listen(
      createHttpServer((request, response) => {
        request.resume();
        request.on('end', () => {
          const code = status === 503 ? 'SlowDown' : 'AccessDenied';
          response.writeHead(status, { 'content-type': 'application/xml' });
          response.end(
            request.method === 'HEAD'
              ? undefined
              : `<Error><Code>${code}</Code><Message>no</Message></Error>`,
          );
        });
      }),
    );
    try {
      const store = createObjectStore(archiveConfig(unavailableVariables(server.url)));
      await assertUnavailable(store);
      status = 403;
      await assert.rejects(store.get('down/a.bin'), (error: Error) => {
        assert.ok(!(error instanceof ObjectStoreUnavailableError));
        assert.match(error.message, /AccessDenied/);
        assert.ok(!error.message.includes(secretAccessKey));
        return true;
      });
    } finally {
      await server.close();
    }
  });

  test('the records service answers 503 ARCHIVE_STORE_UNAVAILABLE', () => {
    const error = recordsErrorCatalogue.fromError?.(new ObjectStoreUnavailableError('down'));
    assert.equal(error?.statusCode, 503);
    assert.equal(error?.code, 'ARCHIVE_STORE_UNAVAILABLE');
    assert.equal(error?.message, 'The archive store is unavailable; retry later');
    assert.equal(recordsErrorCatalogue.fromError?.(new Error('other')), undefined);
  });

  test('the 503 is logged at warn with its cause, and the client sees only the error body', async () => {
    const logs = captureLogs('info');
    const app = await createServiceHttpServer({
      logger: logs.logger,
      bodyLimitBytes: 1024,
      errors: recordsErrorCatalogue,
      metrics: new Registry(),
      openapi: { title: 't', version: '1', description: 't' },
    });
    const cause = 'The archive store is unavailable: GetObject on s3://bucket/prefix failed (TimeoutError)';
    app.get('/cold', () => {
      throw new ObjectStoreUnavailableError(cause);
    });
    try {
      const response = await app.inject({ method: 'GET', url: '/cold' });
      assert.equal(response.statusCode, 503);
      assert.equal(response.json<{ code: string }>().code, 'ARCHIVE_STORE_UNAVAILABLE');
      assert.ok(!response.body.includes('s3://'), 'the cause stays in the log');
      const logged = logs.messages(/dependency unavailable/);
      assert.equal(logged.length, 1);
      assert.equal(logged[0]!.level, 40);
      assert.equal(logged[0]!.code, 'ARCHIVE_STORE_UNAVAILABLE');
      assert.equal((logged[0]!.err as { message: string }).message, cause);
    } finally {
      await app.close();
    }
  });
});

describe('archive store configuration', () => {
  test('unset: a folder in WEFT_DATA_DIR; a path or a file URL: that folder', () => {
    assert.deepEqual(archiveConfig({}), { kind: 'file', root: path.join(path.resolve(scratch), 'archive') });
    assert.deepEqual(archiveConfig({ RECORDS_ARCHIVE_URL: 'file:///srv/archive' }), {
      kind: 'file',
      root: '/srv/archive',
    });
    assert.deepEqual(archiveConfig({ RECORDS_ARCHIVE_URL: 'relative/archive' }), {
      kind: 'file',
      root: path.resolve('relative/archive'),
    });
    assert.equal(
      createObjectStore(archiveConfig({})).location,
      pathToFileURL(path.join(scratch, 'archive')).href,
    );
  });

  test('s3://bucket/prefix with its defaults and the standard AWS variables', () => {
    const config = archiveConfig({
      RECORDS_ARCHIVE_URL: 's3://weft-archive/prod/records/',
      AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000/',
    });
    assert.equal(config.kind, 's3');
    if (config.kind !== 's3') return;
    assert.equal(config.bucket, 'weft-archive');
    assert.equal(config.prefix, 'prod/records');
    assert.equal(config.endpoint, 'http://127.0.0.1:9000');
    assert.equal(config.region, 'us-east-1');
    assert.equal(config.credentials, undefined, 'the SDK default provider chain');
    assert.equal(config.timeoutMs, 10_000);
    assert.deepEqual(config.cache, {
      dir: path.join(path.resolve(scratch), 'archive-cache'),
      maxBytes: 1024 ** 3,
    });
    const own = archiveConfig({
      RECORDS_ARCHIVE_URL: 's3://weft-archive',
      RECORDS_ARCHIVE_S3_ENDPOINT: 'https://minio.internal',
      AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000',
      AWS_REGION: 'eu-west-3',
    });
    assert.ok(own.kind === 's3' && own.endpoint === 'https://minio.internal' && own.prefix === '');
    assert.equal(own.region, 'eu-west-3');
  });

  test('credentials never show in serialised or inspected config', () => {
    const config = loadConfig({
      WEFT_DATA_DIR: scratch,
      ...s3Variables({ AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey }),
      AWS_SESSION_TOKEN: sessionToken,
    });
    const archive = config.records.archive;
    assert.ok(archive.kind === 's3' && archive.credentials?.secretAccessKey === secretAccessKey);
    for (const shown of [JSON.stringify(config), inspect(config, { depth: 10 })])
      for (const secret of [secretAccessKey, sessionToken, accessKeyId]) assert.ok(!shown.includes(secret));
  });

  test('invalid values fail at boot naming the variable, without echoing secrets', () => {
    const refused: [Record<string, string>, RegExp][] = [
      [{ RECORDS_ARCHIVE_URL: 'http://example.com/archive' }, /RECORDS_ARCHIVE_URL/],
      [{ RECORDS_ARCHIVE_URL: 's3://Bad_Bucket/x' }, /RECORDS_ARCHIVE_URL/],
      [{ RECORDS_ARCHIVE_URL: 's3://key:secret@bucket/x' }, /RECORDS_ARCHIVE_URL/],
      [{ RECORDS_ARCHIVE_URL: 's3://bucket/a/../b' }, /RECORDS_ARCHIVE_URL/],
      [
        { RECORDS_ARCHIVE_URL: 's3://bucket', RECORDS_ARCHIVE_S3_ENDPOINT: 'ftp://host' },
        /RECORDS_ARCHIVE_S3_ENDPOINT/,
      ],
      [{ RECORDS_ARCHIVE_URL: 's3://bucket', AWS_ENDPOINT_URL_S3: 'http://u:p@host' }, /AWS_ENDPOINT_URL_S3/],
      [{ RECORDS_ARCHIVE_URL: 's3://bucket', AWS_SECRET_ACCESS_KEY: secretAccessKey }, /AWS_ACCESS_KEY_ID/],
      [{ RECORDS_ARCHIVE_URL: 's3://bucket', AWS_SESSION_TOKEN: sessionToken }, /AWS_SESSION_TOKEN/],
      [{ AWS_REGION: 'EU WEST' }, /AWS_REGION/],
      [{ RECORDS_ARCHIVE_TIMEOUT_MS: '10' }, /RECORDS_ARCHIVE_TIMEOUT_MS/],
      [{ RECORDS_ARCHIVE_CACHE_MB: '0' }, /RECORDS_ARCHIVE_CACHE_MB/],
      [{ RECORDS_ARCHIVE_CACHE_MB: 'lots' }, /RECORDS_ARCHIVE_CACHE_MB/],
    ];
    for (const [variables, named] of refused)
      assert.throws(
        () => loadConfig(variables),
        (error: Error) => {
          assert.match(error.message, named);
          assert.ok(!error.message.includes(secretAccessKey) && !error.message.includes(sessionToken));
          assert.ok(!error.message.includes('key:secret'));
          return true;
        },
        JSON.stringify(variables),
      );
  });
});

async function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<{
  url: string;
  close: () => Promise<void>;
}> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
