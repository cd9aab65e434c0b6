import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ArchiveJob } from '../../src/records/archive/archive-job.js';
import { exportStaged } from '../../src/records/archive/files/export-staged.js';
import { parseExactJson } from '../../src/platform/json/exact-json.js';
import { captureLogs } from '../helpers/log-capture.js';
import { MovableClock } from './support/auth-fixtures.js';
import { startRecordsApp, type RecordsTestApp } from './support/records-app.js';

/**
 * Differential test of the archive query: random records over every field type and random
 * `where` trees; the hot `POST /{path}/query` before archiving must select the same records, with
 * the same contents, as `POST /{path}/archive/query` afterwards, when most records live in many
 * small Parquet file sets and the rest are still staged in PostgreSQL. The seed is printed;
 * ARCHIVE_DIFF_SEED replays one, ARCHIVE_DIFF_QUERIES sets how many trees are tried.
 */

const path = 'acme/lab/diff/samples/v1';
const yaml = `
apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: samples-v1 }
spec:
  org: acme
  app: lab
  domain: diff
  object: samples
  version: v1
  timeMachine: true
  fields:
    - { name: s, type: string, filterable: true, sortable: true }
    - { name: e, type: enum, enum: [alpha, beta, Gamma, delta], filterable: true }
    - { name: i, type: integer, filterable: true }
    - { name: n, type: number, filterable: true }
    - { name: b, type: boolean, filterable: true }
    - { name: t, type: timestamp, filterable: true }
    - { name: d, type: date, filterable: true }
    - { name: j, type: json, filterable: true }
    - { name: u, type: uuid, filterable: true }
  access:
    roles: { create: [admin], read: [admin], update: [admin], delete: [admin] }
  archive:
    afterDays: 30
`;
const day = 86_400_000;
const seed = Number(process.env.ARCHIVE_DIFF_SEED ?? Math.floor(Math.random() * 2 ** 31));
const queryCount = Number(process.env.ARCHIVE_DIFF_QUERIES ?? 150);
/** Records in files (several small file sets) and records left staged in PostgreSQL. */
const inFiles = 96;
const staged = 36;

/** mulberry32: a small seeded generator, so a failing run can be replayed from its seed. */
function generator(start: number) {
  let state = start >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!;
  return { next, int, pick, chance: (p: number) => next() < p };
}
const random = generator(seed);

type FieldType =
  'string' | 'enum' | 'integer' | 'number' | 'boolean' | 'timestamp' | 'date' | 'json' | 'uuid';
const fields: Record<string, FieldType> = {
  id: 'uuid',
  created_at: 'timestamp',
  s: 'string',
  e: 'enum',
  i: 'integer',
  n: 'number',
  b: 'boolean',
  t: 'timestamp',
  d: 'date',
  j: 'json',
  u: 'uuid',
};
const stringPool = [
  '',
  'a',
  'A',
  'ab',
  'abc',
  'abd',
  'b',
  'Z',
  'é',
  'éa',
  'zz',
  'a b',
  '%_',
  "it's",
  '日本',
  '😀x',
  'x'.repeat(240),
];
const enumValues = ['alpha', 'beta', 'Gamma', 'delta'];
const integerPool = [
  '0',
  '1',
  '-1',
  '7',
  '42',
  '-42',
  '9007199254740993',
  '9007199254740992',
  '-900000000000000001',
  '900000000000000000',
];
const numberPool = [
  '0',
  '0.1',
  '0.30000000000000004',
  '-2.5',
  '3',
  '1e3',
  '1.5E-7',
  '12345678901234567890.123456789',
  '12345678901234567890.123456788',
  '12345678901234567890.1234567885',
  '-98765432109876543210.5',
  '1e400',
  '2e400',
  '-1e400',
  '0.1000000000000000000001',
];
const uuidPool = Array.from({ length: 8 }, () => randomUUID());

/** A record's field values as raw JSON text (numbers past double precision are sent as written). */
function randomFields(): string {
  const nullable = (text: () => string) => (random.chance(0.15) ? 'null' : text());
  const micros = String(random.int(0, 999_999)).padStart(6, '0');
  const minute = random.int(0, 600);
  const stamp = new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString().replace('.000Z', `.${micros}Z`);
  const values: Record<string, string> = {
    s: nullable(() =>
      JSON.stringify(random.pick(stringPool) + (random.chance(0.3) ? random.pick(stringPool) : '')),
    ),
    e: nullable(() => JSON.stringify(random.pick(enumValues))),
    i: nullable(() => (random.chance(0.6) ? String(random.int(-50, 50)) : random.pick(integerPool))),
    n: nullable(() =>
      random.chance(0.4) ? `${random.int(-100, 100)}.${random.int(0, 99)}` : random.pick(numberPool),
    ),
    b: nullable(() => String(random.chance(0.5))),
    t: nullable(() => JSON.stringify(random.chance(0.2) ? stamp.replace('Z', '+00:00') : stamp)),
    d: nullable(() =>
      JSON.stringify(new Date(Date.UTC(2025, 11, 20 + random.int(0, 20))).toISOString().slice(0, 10)),
    ),
    j: nullable(() =>
      JSON.stringify(
        random.pick([
          { k: random.int(0, 5), tags: random.chance(0.5) ? ['x', 'y'] : ['y'] },
          { k: random.int(0, 5), nested: { deep: random.pick(['p', 'q']) } },
          [random.int(0, 3), 'z'],
          random.pick(stringPool.slice(0, 5)),
          random.int(0, 3),
        ]),
      ),
    ),
    u: nullable(() => JSON.stringify(random.pick(uuidPool))),
  };
  return `{${Object.entries(values)
    .map(([name, value]) => `${JSON.stringify(name)}:${value}`)
    .join(',')}}`;
}

type Record_ = Record<string, unknown> & { id: string };
type Page = { data: Record_[]; pagination: { has_more: boolean; cursor: string | null } };

/** A value near `value` (a record's value of a field of `type`), as a query value. */
function near(type: FieldType, value: unknown, raw: string | undefined): unknown {
  switch (type) {
    case 'integer': {
      const base = BigInt(raw ?? String(value));
      return String(base + BigInt(random.int(-1, 1)));
    }
    case 'number': {
      const text = raw ?? String(value);
      return random.pick([
        text,
        text.includes('.') && !/e/i.test(text) ? `${text}1` : `${text}.5`.replace(/e.*\.5$/i, ''),
        Number.isFinite(Number(text)) ? String(Number(text)) : text,
        text.startsWith('-') ? text.slice(1) : `-${text}`,
        random.pick(numberPool),
      ]);
    }
    case 'string': {
      const text = String(value);
      // By code point: a cut through a surrogate pair is text the API refuses.
      const points = Array.from(text);
      return random.pick([
        text,
        points.slice(0, random.int(0, points.length)).join(''),
        `${text}a`,
        text.toUpperCase(),
        random.pick(stringPool),
      ]);
    }
    case 'enum':
      return random.chance(0.8) ? random.pick(enumValues) : 'zeta';
    case 'boolean':
      return random.chance(0.5);
    case 'timestamp': {
      const text = String(value);
      const match = /^(.*\.)(\d{6})Z$/.exec(text);
      if (!match) return text;
      const micros = Math.min(999_999, Math.max(0, Number(match[2]) + random.int(-1, 1)));
      const shifted = `${match[1]}${String(micros).padStart(6, '0')}Z`;
      return random.chance(0.2) ? shifted.replace('Z', '+00:00') : shifted;
    }
    case 'date': {
      const date = new Date(`${String(value)}T00:00:00Z`);
      date.setUTCDate(date.getUTCDate() + random.int(-1, 1));
      return date.toISOString().slice(0, 10);
    }
    case 'uuid': {
      const text = String(value);
      return random.chance(0.7) ? text : `${text.slice(0, 35)}${random.pick(['0', '7', 'f'])}`;
    }
    case 'json':
      return value;
  }
}

const operators: Record<FieldType, string[]> = {
  string: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists', 'contains', 'startsWith'],
  enum: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  integer: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  number: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  timestamp: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  date: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  uuid: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  boolean: ['eq', 'ne', 'in', 'exists'],
  json: ['eq', 'ne', 'exists', 'contains'],
};

describe(`archive query equals the hot query (seed ${seed})`, () => {
  let app: RecordsTestApp;
  const clock = new MovableClock();
  const logs = captureLogs('fatal');
  /** Records as the hot API shows them, by id, and their raw number texts. */
  const records = new Map<string, Record_>();
  const rawNumbers = new Map<string, { i?: string; n?: string }>();

  before(async () => {
    console.log(`archive differential seed: ${seed} (replay with ARCHIVE_DIFF_SEED=${seed})`);
    app = await startRecordsApp(
      { RECORDS_ARCHIVE_RATE_LIMIT: '1000000' },
      { resources: { 'samples.yaml': yaml } },
    );
    // Small chunks, so most pages are decided over several DuckDB reads paging forward.
    app.service.requestArchiveFiles.candidateChunk = 8;
  });
  after(() => app?.close());

  const job = (batchSize: number) =>
    new ArchiveJob({
      pool: app.database.pool,
      registry: app.service.registry,
      clock,
      logger: logs.logger,
      batchSize,
      maxBatches: 1,
    });

  /** A leaf comparing a field with a value near one a record holds. */
  const leaf = (ids: string[]): Record<string, unknown> => {
    const field = random.pick(Object.keys(fields));
    const type = fields[field]!;
    const op = random.pick(operators[type]);
    if (op === 'exists') return { field, op, value: random.chance(0.5) };
    if ((op === 'eq' || op === 'ne') && random.chance(0.1)) return { field, op, value: null };
    const sample = () => {
      for (let tries = 0; tries < 20; tries += 1) {
        const id = random.pick(ids);
        const value = records.get(id)![field];
        if (value !== null && value !== undefined)
          return near(type, value, rawNumbers.get(id)?.[field as 'i' | 'n']);
      }
      return near(type, records.get(ids[0]!)!.id, undefined);
    };
    if (op === 'in') return { field, op, value: Array.from({ length: random.int(1, 4) }, sample) };
    if (op === 'contains' && type === 'json') {
      const value = sample();
      const contained =
        value !== null && typeof value === 'object' && !Array.isArray(value)
          ? Object.fromEntries(Object.entries(value).filter(() => random.chance(0.6)))
          : Array.isArray(value)
            ? value.slice(0, 1)
            : value;
      return { field, op, value: contained };
    }
    if (op === 'contains' || op === 'startsWith') {
      const points = Array.from(String(sample()));
      const start = random.int(0, points.length);
      return { field, op, value: points.slice(start, start + random.int(0, 3)).join('') };
    }
    return { field, op, value: sample() };
  };
  const tree = (ids: string[], depth: number): Record<string, unknown> => {
    if (depth >= 3 || random.chance(0.45)) return leaf(ids);
    const kind = random.pick(['and', 'or', 'not'] as const);
    if (kind === 'not') return { not: tree(ids, depth + 1) };
    return { [kind]: Array.from({ length: random.int(1, 3) }, () => tree(ids, depth + 1)) };
  };

  const hotQuery = async (where: unknown, select: string[] | undefined): Promise<Record_[]> => {
    const rows: Record_[] = [];
    let cursor: string | null = null;
    do {
      const response = await app.call('POST', `/api/${path}/query`, {
        body: {
          where,
          sort: [{ field: 'id' }],
          limit: 1000,
          ...(select ? { select } : {}),
          ...(cursor ? { cursor } : {}),
        },
      });
      assert.equal(response.statusCode, 200, `hot ${JSON.stringify(where)}: ${response.body}`);
      const page = parseExactJson(response.body) as Page;
      rows.push(...page.data);
      cursor = page.pagination.cursor;
    } while (cursor);
    return rows;
  };
  const archiveQuery = async (
    where: unknown,
    select: string[] | undefined,
    limit: number,
  ): Promise<Record_[]> => {
    const rows: Record_[] = [];
    let cursor: string | null = null;
    do {
      const response = await app.call('POST', `/api/${path}/archive/query`, {
        body: { where, limit, ...(select ? { select } : {}), ...(cursor ? { cursor } : {}) },
      });
      assert.equal(response.statusCode, 200, `archive ${JSON.stringify(where)}: ${response.body}`);
      const page = parseExactJson(response.body) as Page;
      assert.ok(page.data.length <= limit);
      rows.push(...page.data);
      cursor = page.pagination.cursor;
      assert.equal(page.pagination.has_more, cursor !== null);
    } while (cursor);
    return rows;
  };
  /** Rows by id, `archived_at` taken off; each id must come once. */
  const byId = (rows: Record_[], label: string) => {
    const map = new Map<string, Record<string, unknown>>();
    for (const row of rows) {
      const { archived_at: archivedAt, ...rest } = row;
      void archivedAt;
      assert.ok(!map.has(row.id), `${label}: ${row.id} twice`);
      map.set(row.id, rest);
    }
    return map;
  };

  test('random where trees select the same records, with the same contents, hot and archived', async () => {
    for (let index = 0; index < inFiles + staged; index += 1) {
      const body = randomFields();
      const response = await app.call('POST', `/api/${path}`, {
        body,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(response.statusCode, 201, `${body}: ${response.body}`);
      const record = (parseExactJson(response.body) as { data: Record_ }).data;
      records.set(record.id, record);
      const raw = /"i":(-?\d+)/.exec(body)?.[1];
      const rawN = /"n":(-?[\d.eE+-]+)/.exec(body)?.[1];
      rawNumbers.set(record.id, { ...(raw ? { i: raw } : {}), ...(rawN ? { n: rawN } : {}) });
    }
    const ids = [...records.keys()];

    // Hot answers first, while every record is live.
    const cases: {
      where: unknown;
      select?: string[];
      limit: number;
      hot: Map<string, Record<string, unknown>>;
    }[] = [];
    for (let index = 0; index < queryCount; index += 1) {
      const where = tree(ids, 0);
      const select = random.chance(0.2)
        ? ['id', ...Object.keys(fields).filter((name) => name !== 'id' && random.chance(0.4))]
        : undefined;
      const hot = byId(await hotQuery(where, select), 'hot');
      cases.push({ where, ...(select ? { select } : {}), limit: random.pick([2, 7, 25, 1000]), hot });
    }
    const sizes = cases.map((item) => item.hot.size);
    assert.ok(
      sizes.filter((size) => size > 0 && size < ids.length).length > queryCount / 4,
      `answers: ${sizes.join(',')}`,
    );

    // Archive in four staging runs (four archived_at values), export into sets of 7 records, then
    // stage the rest without exporting.
    clock.advance(31 * day);
    for (let run = 0; run < 4; run += 1) {
      clock.advance(1000 + run);
      assert.equal(await job(inFiles / 4).runOnce(), inFiles / 4);
    }
    const schema = app.service.registry.resolve(path);
    const exported = await exportStaged(app.database.pool, app.service.archiveFiles, schema, 7);
    assert.equal(exported, inFiles);
    clock.advance(1000);
    assert.equal(await job(staged).runOnce(), staged);
    const sets = await app.database.pool.query<{ n: string; records: string }>(
      `SELECT count(*) AS n, sum(record_count) AS records FROM records_archive.files WHERE schema_path = $1`,
      [path],
    );
    assert.equal(Number(sets.rows[0]?.n), Math.ceil(inFiles / 7));
    assert.equal(Number(sets.rows[0]?.records), inFiles);
    const stagedRows = await app.database.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM records_archive.records WHERE schema_path = $1`,
      [path],
    );
    assert.equal(Number(stagedRows.rows[0]?.n), staged);

    // Every record reads back as it was.
    for (const [id, record] of records) {
      const response = await app.call('GET', `/api/${path}/${id}/archive`);
      assert.equal(response.statusCode, 200, response.body);
      const { archived_at: archivedAt, ...rest } = (parseExactJson(response.body) as { data: Record_ }).data;
      assert.equal(typeof archivedAt, 'string');
      assert.deepEqual(rest, record, `GET ${id}/archive`);
    }

    const failures: string[] = [];
    const compare = async (item: (typeof cases)[number]) => {
      const cold = byId(await archiveQuery(item.where, item.select, item.limit), 'archive');
      const label = `where ${JSON.stringify(item.where)}${item.select ? ` select ${item.select.join(',')}` : ''} limit ${item.limit}`;
      const missing = [...item.hot.keys()].filter((id) => !cold.has(id));
      const extra = [...cold.keys()].filter((id) => !item.hot.has(id));
      if (missing.length > 0 || extra.length > 0) {
        const show = (id: string) => JSON.stringify(records.get(id));
        failures.push(`${label}: missing ${missing.map(show).join(' ')} extra ${extra.map(show).join(' ')}`);
        return;
      }
      for (const [id, row] of item.hot)
        try {
          assert.deepEqual(cold.get(id), row);
        } catch {
          failures.push(`${label}: ${id} differs: ${JSON.stringify(cold.get(id))} vs ${JSON.stringify(row)}`);
        }
    };
    for (const item of cases) await compare(item);
    assert.deepEqual(failures, [], `seed ${seed}: ${failures.length} of ${cases.length} queries differ`);

    // The staged batch moves into files (sets of 3) while queries page through: every answer is
    // still exact (each read is one snapshot; a page boundary falls on the same order either way).
    let moving = true;
    const exporting = (async () => {
      try {
        await exportStaged(app.database.pool, app.service.archiveFiles, schema, 3);
      } finally {
        moving = false;
      }
    })();
    let concurrent = 0;
    while (moving) {
      await compare(cases[concurrent % cases.length]!);
      concurrent += 1;
    }
    await exporting;
    const left = await app.database.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM records_archive.records WHERE schema_path = $1`,
      [path],
    );
    assert.equal(Number(left.rows[0]?.n), 0);
    for (const item of cases.slice(0, 20)) await compare(item);
    assert.deepEqual(
      failures,
      [],
      `seed ${seed}: during and after the move, ${failures.length} answers differ (${concurrent} during)`,
    );
  });
});
