/**
 * npm run bench:records-access — the cost of the seven access layers. GET by id and a list (filter,
 * sort, limit 20) over real HTTP with 64 connections, on two schemas holding the same 100k orders:
 * one permissive (a JWT and route RBAC only), one with every layer active (JWT, RBAC, a CEL rule, a
 * row filter, a field read filter, row-level security in an access session), in the same run. The
 * guarded schema's caller sees a quarter of the rows (its region). Not a test: it prints figures.
 *
 * The two are loaded in alternating slices (see support/interleave.ts): BENCH_ROUNDS (default 5)
 * pairs of BENCH_SECONDS (default 4) each; the ratio is the median of the rounds'.
 * BENCH_DATABASE_URL uses another server; BENCH_ONLY (a substring, e.g. `list`) runs only the
 * matching scenarios; BENCH_REGION_INDEX=0 leaves out the (region, amount) index both schemas
 * declare.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { migrate } from '../src/platform/database/migrate.js';
import { createPool } from '../src/platform/database/pool.js';
import { recordsMigrationsDir } from '../src/records/index.js';
import { applyResources } from '../src/records/schemas/apply-resources.js';
import { readResourceDirectory } from '../src/records/schemas/resource-documents.js';
import { startBenchServer } from './support/bench-database.js';
import { interleaveLoad, type InterleavedResult } from './support/interleave.js';
import { startServerProcess, type LoadResult } from './support/load.js';
import { loadRequests, type RequestShape } from './records/load-requests.js';
import { benchResourcesYaml, benchSchemas } from './records-access/schemas.js';

const seconds = Number(process.env.BENCH_SECONDS ?? '4');
const rounds = Number(process.env.BENCH_ROUNDS ?? '5');
const connections = 64;
const rows = 100_000;
const serverFile = fileURLToPath(new URL('./records-access/server.ts', import.meta.url));
const jwtSecret = 'bench-records-secret-0123456789abcdef0123';

const server = await startBenchServer();
const resourcesDir = await mkdtemp(path.join(os.tmpdir(), 'weft-bench-access-'));
try {
  await writeFile(path.join(resourcesDir, 'orders.yaml'), benchResourcesYaml);
  const url = await server.createDatabase('weft_bench_records_access');
  const pool = createPool(url, { max: 2, applicationName: 'bench-setup' });
  await migrate(pool, 'records', recordsMigrationsDir);
  const report = await applyResources(pool, (await readResourceDirectory(resourcesDir)).documents);
  if (report.rejected.length > 0) throw new Error(JSON.stringify(report.rejected));
  const ids: Record<keyof typeof benchSchemas, string[]> = { open: [], guarded: [] };
  for (const [kind, { table }] of Object.entries(benchSchemas) as [
    keyof typeof benchSchemas,
    { table: string },
  ][]) {
    await pool.query(
      `INSERT INTO ${table} (created_by, updated_by, po_number, region, status, amount, notes)
       SELECT 'seed', 'seed', 'PO-' || lpad(n::text, 6, '0'), (ARRAY['north','south','east','west'])[1 + n % 4],
              (ARRAY['draft','submitted','approved','received','cancelled'])[1 + n % 5],
              round((random() * 100000)::numeric, 2), 'seeded order ' || n
       FROM generate_series(0, ${rows - 1}) AS n`,
    );
    await pool.query(`VACUUM ANALYZE ${table}`);
    ids[kind] = (
      await pool.query<{ id: string }>(
        `SELECT id FROM ${table} WHERE region = 'north' ORDER BY random() LIMIT 10000`,
      )
    ).rows.map((row) => row.id);
  }
  await pool.end();

  const token = await new SignJWT({ roles: ['buyer'], attributes: { region: 'north' } })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('bench')
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(jwtSecret));
  const scenarios: Record<string, (kind: keyof typeof benchSchemas) => () => RequestShape> = {
    'GET by id': (kind) => {
      let index = 0;
      const list = ids[kind];
      return () => ({
        method: 'GET',
        path: `/api/${benchSchemas[kind].path}/${list[index++ % list.length] ?? ''}`,
      });
    },
    'list filter+sort, limit 20': (kind) => () => ({
      method: 'GET',
      path: `/api/${benchSchemas[kind].path}?filter[status]=approved&sort=-amount&limit=20`,
    }),
  };
  const child = await startServerProcess(serverFile, {
    BENCH_RECORDS_URL: url,
    BENCH_RESOURCES_DIR: resourcesDir,
    BENCH_JWT_SECRET: jwtSecret,
  });
  const results: { name: string; result: InterleavedResult }[] = [];
  const only = process.env.BENCH_ONLY?.toLowerCase();
  try {
    const measure = (next: () => RequestShape, warmupSeconds: number) =>
      loadRequests(`http://127.0.0.1:${child.port}`, next, {
        connections,
        seconds,
        warmupSeconds,
        headers: { authorization: `Bearer ${token}` },
      });
    for (const [name, scenario] of Object.entries(scenarios)) {
      if (only && !name.toLowerCase().includes(only)) continue;
      const next = { open: scenario('open'), guarded: scenario('guarded') };
      let warm = { open: 2, guarded: 2 };
      const run = async (kind: keyof typeof benchSchemas): Promise<LoadResult> => {
        const result = await measure(next[kind], warm[kind]);
        warm = { ...warm, [kind]: 0 };
        return result;
      };
      results.push({
        name,
        result: await interleaveLoad(
          rounds,
          () => run('open'),
          () => run('guarded'),
        ),
      });
    }
  } finally {
    await child.stop();
  }
  const figure = (result: LoadResult) =>
    `${result.requestsPerSecond.toFixed(0).padStart(7)} req/s p99 ${String(result.p99Ms).padStart(3)} ms err ${result.errors + result.non2xx}`;
  console.log(
    `\nbench:records-access — ${connections} connections, ${rounds} alternating rounds of ${seconds} s, ${rows} orders per schema`,
  );
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, ${server.describe}, load ${os.loadavg()[0]?.toFixed(1)}\n`,
  );
  for (const { name, result } of results) {
    const ratios = result.ratios.map((ratio) => ratio.toFixed(2)).join(' ');
    console.log(
      `${name.padEnd(28)} permissive ${figure(result.floor)}   every layer ${figure(result.subject)}   ratio ${result.ratio.toFixed(2)} (rounds ${ratios}; target ≥ 0.75)`,
    );
  }
} finally {
  await rm(resourcesDir, { recursive: true, force: true });
  await server.stop();
}
