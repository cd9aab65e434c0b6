/**
 * npm run bench:records-history — the cost of the time machine and the audit chain. Creates and
 * PATCHes on the example purchase-orders schema (history and audit on) beside the same with the
 * change trigger disabled (both off), 16 concurrent connections each running the service's own
 * write statements; then the p99 of a history `at` read on a record with 1,000 events. Not a test:
 * it prints figures. BENCH_SECONDS (default 5) sets each run; BENCH_DATABASE_URL another server.
 */
import { migrate } from '../src/platform/database/migrate.js';
import { createPool, type Pool } from '../src/platform/database/pool.js';
import { stateJsonAt } from '../src/records/history/history-repository.js';
import { recordsMigrationsDir } from '../src/records/index.js';
import { insertRecord, patchRecord } from '../src/records/records/record-repository.js';
import { applyResources } from '../src/records/schemas/apply-resources.js';
import { compileSchema, type CompiledSchema } from '../src/records/schemas/compiled-schema.js';
import { examplesResourcesDir } from '../src/records/schemas/examples-dir.js';
import { readResourceDirectory } from '../src/records/schemas/resource-documents.js';
import { validateSchemaDefinition } from '../src/records/schemas/validate-definition.js';
import { startBenchServer } from './support/bench-database.js';
import { benchSupplierId, seedBenchSupplier } from './support/bench-supplier.js';

const seconds = Number(process.env.BENCH_SECONDS ?? '5');
const connections = 16;
let serial = 0;
const order = () => ({
  po_number: `PO-${String((serial += 1) % 1_000_000).padStart(6, '0')}`,
  supplier_id: benchSupplierId,
  currency: 'EUR',
  amount: 100.5,
  notes: 'bench',
});

async function throughput(work: () => Promise<void>): Promise<number> {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) {
        await work();
        done += 1;
      }
    }),
  );
  return done / seconds;
}

async function writes(pool: Pool, schema: CompiledSchema, label: string) {
  const created = await throughput(async () => {
    await insertRecord(pool, schema, 'bench', order());
  });
  const { rows } = await pool.query<{ id: string }>(
    `SELECT id FROM ${schema.table} ORDER BY random() LIMIT 20000`,
  );
  const versions = new Map(rows.map((row) => [row.id, 1]));
  const ids = [...versions.keys()];
  let next = 0;
  const patched = await throughput(async () => {
    const id = ids[(next += 1) % ids.length]!;
    const outcome = await patchRecord(pool, schema, 'bench', id, versions.get(id) ?? 1, {
      notes: `n${next}`,
    });
    if ('currentVersion' in outcome) versions.set(id, outcome.currentVersion);
    else versions.set(id, (versions.get(id) ?? 1) + 1);
  });
  console.log(
    `${label.padEnd(26)} create ${created.toFixed(0).padStart(6)}/s   patch ${patched.toFixed(0).padStart(6)}/s`,
  );
  return { created, patched };
}

const server = await startBenchServer();
try {
  const url = await server.createDatabase('weft_bench_records_history');
  const pool = createPool(url, { max: connections + 2, applicationName: 'bench-history' });
  await migrate(pool, 'records', recordsMigrationsDir);
  const documents = (await readResourceDirectory(examplesResourcesDir)).documents;
  await applyResources(pool, documents);
  await seedBenchSupplier(pool);
  const spec = documents.find((document) => document.name === 'purchase-orders-v1')?.document.spec;
  const result = validateSchemaDefinition(spec);
  if (!result.ok) throw new Error('example schema invalid');
  const schema = compileSchema(result.definition);
  console.log(`bench:records-history on ${server.describe}, ${connections} connections, ${seconds}s per run`);

  await pool.query(`ALTER TABLE ${schema.table} DISABLE TRIGGER record_changes`);
  const off = await writes(pool, schema, 'history+audit off');
  await pool.query(`ALTER TABLE ${schema.table} ENABLE TRIGGER record_changes`);
  const on = await writes(pool, schema, 'history+audit on');
  console.log(
    `ratio on/off                create ${(on.created / off.created).toFixed(2)}     patch ${(on.patched / off.patched).toFixed(2)}   (target >= 0.6)`,
  );

  const body = order();
  const created = JSON.parse(await insertRecord(pool, schema, 'bench', body)) as { id: string };
  const instants: string[] = [];
  for (let version = 1; version < 1000; version += 1) {
    const outcome = await patchRecord(pool, schema, 'bench', created.id, version, { notes: `v${version}` });
    if ('updated' in outcome)
      instants.push((JSON.parse(outcome.updated) as { updated_at: string }).updated_at);
  }
  const timings: number[] = [];
  for (let round = 0; round < 2000; round += 1) {
    const instant = instants[Math.floor(Math.random() * instants.length)]!;
    const started = performance.now();
    await stateJsonAt(pool, schema, created.id, instant);
    timings.push(performance.now() - started);
  }
  timings.sort((a, b) => a - b);
  const pick = (q: number) =>
    timings[Math.min(timings.length - 1, Math.floor(q * timings.length))]!.toFixed(2);
  console.log(
    `history at (1,000 events)   p50 ${pick(0.5)} ms   p99 ${pick(0.99)} ms   (target p99 < 20 ms)`,
  );
  await pool.end();
} finally {
  await server.stop();
}
