/**
 * npm run bench:records — the records API over real HTTP with 64 connections on the example
 * purchase-orders schema holding 100k rows: GET by id, list with a filter and a sort (limit 20),
 * POST create and PATCH, each beside its floor measured in the same run: a bare Fastify + pg
 * handler doing the same single SQL statement with none of our layers. Not a test: it prints figures.
 *
 * Floor and weft run side by side and are loaded in alternating slices (see support/interleave.ts):
 * BENCH_ROUNDS (default 5) pairs of BENCH_SECONDS (default 4) each; the ratio is the median of the
 * rounds'. BENCH_DATABASE_URL uses another server; BENCH_ONLY (a substring, e.g. `list`) runs only
 * the matching scenarios; BENCH_PROFILE=dir writes CPU profiles of the servers.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { migrate } from '../src/platform/database/migrate.js';
import { createPool } from '../src/platform/database/pool.js';
import { recordsMigrationsDir } from '../src/records/index.js';
import { applyResources } from '../src/records/schemas/apply-resources.js';
import { examplesResourcesDir } from '../src/records/schemas/examples-dir.js';
import { readResourceDirectory } from '../src/records/schemas/resource-documents.js';
import { startBenchServer } from './support/bench-database.js';
import { benchSupplierId, seedBenchSupplier } from './support/bench-supplier.js';
import { interleaveLoad, type InterleavedResult } from './support/interleave.js';
import { startServerProcess, type LoadResult, type ServerProcess } from './support/load.js';
import { loadRequests, type RequestShape } from './records/load-requests.js';

const seconds = Number(process.env.BENCH_SECONDS ?? '4');
const rounds = Number(process.env.BENCH_ROUNDS ?? '5');
const connections = 64;
const rows = 100_000;
const serverFile = fileURLToPath(new URL('./records/server.ts', import.meta.url));
const jwtSecret = 'bench-records-secret-0123456789abcdef0123';
const schemaPath = '/api/acme/procurement/purchasing/purchase-orders/v1';
const table = 'rec_acme.procurement__purchasing__purchase_orders__v1';

const server = await startBenchServer();
try {
  const url = await server.createDatabase('weft_bench_records');
  const pool = createPool(url, { max: 2, applicationName: 'bench-setup' });
  await migrate(pool, 'records', recordsMigrationsDir);
  const report = await applyResources(pool, (await readResourceDirectory(examplesResourcesDir)).documents);
  if (report.rejected.length > 0) throw new Error(JSON.stringify(report.rejected));
  await seedBenchSupplier(pool);
  await pool.query(
    `INSERT INTO ${table} (created_by, updated_by, po_number, supplier_id, status, currency, amount, ordered_on, notes)
     SELECT 'seed', 'seed', 'PO-' || lpad(n::text, 6, '0'), $1::uuid,
            (ARRAY['draft','submitted','approved','received','cancelled'])[1 + n % 5],
            (ARRAY['EUR','USD','GBP','CHF'])[1 + n % 4], round((random() * 100000)::numeric, 2),
            date '2025-01-01' + n % 365, 'seeded order ' || n
     FROM generate_series(0, ${rows - 1}) AS n`,
    [benchSupplierId],
  );
  await pool.query(`VACUUM ANALYZE ${table}`);
  const ids = (
    await pool.query<{ id: string }>(`SELECT id FROM ${table} ORDER BY random() LIMIT 40000`)
  ).rows.map((row) => row.id);
  await pool.end();
  const readIds = ids.slice(0, 10_000);
  const patchIds = { floor: ids.slice(10_000, 25_000), weft: ids.slice(25_000, 40_000) };

  const token = await new SignJWT({ roles: ['admin'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('bench')
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(jwtSecret));
  let poNumber = rows;

  type Mode = 'weft' | 'floor';
  const scenarios: Record<string, (mode: Mode) => () => RequestShape> = {
    'GET by id': (mode) => {
      let index = 0;
      return () => {
        const id = readIds[index++ % readIds.length] ?? '';
        return { method: 'GET', path: mode === 'weft' ? `${schemaPath}/${id}` : `/get/${id}` };
      };
    },
    'list filter+sort, limit 20': (mode) => () => ({
      method: 'GET',
      path: mode === 'weft' ? `${schemaPath}?filter[status]=approved&sort=-amount&limit=20` : '/list',
    }),
    'POST create': (mode) => () => ({
      method: 'POST',
      path: mode === 'weft' ? schemaPath : '/create',
      body: JSON.stringify({
        po_number: `PO-${String(poNumber++ % 1_000_000).padStart(6, '0')}`,
        supplier_id: benchSupplierId,
        currency: 'EUR',
        amount: 99.5,
      }),
    }),
    PATCH: (mode) => {
      const versions = new Map<string, number>();
      const list = patchIds[mode];
      let index = 0;
      return () => {
        const id = list[index++ % list.length] ?? '';
        const version = versions.get(id) ?? 1;
        versions.set(id, version + 1);
        return {
          method: 'PATCH',
          path: mode === 'weft' ? `${schemaPath}/${id}` : `/patch/${id}`,
          body: JSON.stringify({ version, notes: `bench ${version}` }),
        };
      };
    },
  };

  const results: { name: string; result: InterleavedResult }[] = [];
  const startServer = (mode: Mode): Promise<ServerProcess> =>
    startServerProcess(serverFile, { BENCH_RECORDS_URL: url, BENCH_MODE: mode, BENCH_JWT_SECRET: jwtSecret });
  const slice = (mode: Mode, child: ServerProcess, next: () => RequestShape, warmupSeconds: number) =>
    loadRequests(`http://127.0.0.1:${child.port}`, next, {
      connections,
      seconds,
      warmupSeconds,
      headers: mode === 'weft' ? { authorization: `Bearer ${token}` } : {},
    });
  const only = process.env.BENCH_ONLY?.toLowerCase();
  for (const [name, scenario] of Object.entries(scenarios)) {
    if (only && !name.toLowerCase().includes(only)) continue;
    const servers = { floor: await startServer('floor'), weft: await startServer('weft') };
    try {
      const next = { floor: scenario('floor'), weft: scenario('weft') };
      let warm = { floor: 2, weft: 2 };
      const run = async (mode: Mode): Promise<LoadResult> => {
        const result = await slice(mode, servers[mode], next[mode], warm[mode]);
        warm = { ...warm, [mode]: 0 };
        return result;
      };
      results.push({
        name,
        result: await interleaveLoad(
          rounds,
          () => run('floor'),
          () => run('weft'),
        ),
      });
    } finally {
      await Promise.all([servers.floor.stop(), servers.weft.stop()]);
    }
  }

  const targets: Record<string, number> = {
    'GET by id': 0.7,
    'list filter+sort, limit 20': 0.7,
    'POST create': 0.6,
    PATCH: 0.6,
  };
  const figure = (result: LoadResult) =>
    `${result.requestsPerSecond.toFixed(0).padStart(7)} req/s p99 ${String(result.p99Ms).padStart(3)} ms err ${result.errors + result.non2xx}`;
  console.log(
    `\nbench:records — ${connections} connections, ${rounds} alternating rounds of ${seconds} s, ${rows} purchase orders`,
  );
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, ${server.describe}, load ${os.loadavg()[0]?.toFixed(1)}\n`,
  );
  for (const { name, result } of results) {
    const rounds = result.ratios.map((ratio) => ratio.toFixed(2)).join(' ');
    console.log(
      `${name.padEnd(28)} floor ${figure(result.floor)}   weft ${figure(result.subject)}   ratio ${result.ratio.toFixed(2)} (rounds ${rounds}; target ≥ ${targets[name]?.toFixed(1)})`,
    );
  }
} finally {
  await server.stop();
}
