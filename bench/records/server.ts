/**
 * A server for bench:records, in its own process. BENCH_MODE=weft runs the records service;
 * BENCH_MODE=floor runs a bare Fastify + pg handler per scenario doing the same single SQL statement
 * with none of our layers (no auth, rate limit, validation, registry, metrics). Prints `READY <port>`.
 */
import Fastify from 'fastify';
import pg from 'pg';
import { loadConfig } from '../../src/platform/config/index.js';
import { createPool } from '../../src/platform/database/pool.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { createRecordsService } from '../../src/records/index.js';
import { examplesResourcesDir } from '../../src/records/schemas/examples-dir.js';

const databaseUrl = process.env.BENCH_RECORDS_URL ?? '';
const poolSize = 10;
const table = 'rec_acme.procurement__purchasing__purchase_orders__v1';
const ts = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const recordJson = `json_build_object('id', id, 'created_at', ${ts('created_at')}, 'created_by', created_by,
  'updated_at', ${ts('updated_at')}, 'updated_by', updated_by, 'version', version, 'deleted_at', ${ts('deleted_at')},
  'po_number', po_number, 'supplier_id', supplier_id, 'status', status, 'currency', currency, 'amount', amount,
  'ordered_on', ordered_on, 'expected_at', ${ts('expected_at')}, 'notes', notes, 'lines', lines)`;

async function floor(): Promise<string> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  const app = Fastify({ logger: false });
  const send = (body: string) => `{"data":${body}}`;
  app.get('/get/:id', async (request, reply) => {
    const { rows } = await pool.query<{ j: string }>({
      name: 'get',
      text: `SELECT ${recordJson}::text AS j FROM ${table} WHERE id = $1 AND deleted_at IS NULL`,
      values: [(request.params as { id: string }).id],
    });
    return reply.type('application/json').send(send(rows[0]?.j ?? 'null'));
  });
  app.get('/list', async (_request, reply) => {
    const { rows } = await pool.query<{ j: string }>({
      name: 'list',
      text: `SELECT ${recordJson}::text AS j FROM ${table} WHERE deleted_at IS NULL AND status = $1
             ORDER BY amount DESC, id DESC LIMIT 21`,
      values: ['approved'],
    });
    return reply.type('application/json').send(send(`[${rows.map((row) => row.j).join(',')}]`));
  });
  app.post('/create', async (request, reply) => {
    const body = request.body as Record<string, unknown>;
    const { rows } = await pool.query<{ j: string }>({
      name: 'create',
      text: `INSERT INTO ${table} (created_by, updated_by, po_number, supplier_id, currency, amount)
             VALUES ($1, $1, $2, $3, $4, $5) RETURNING ${recordJson}::text AS j`,
      values: ['bench', body.po_number, body.supplier_id, body.currency, body.amount],
    });
    return reply
      .status(201)
      .type('application/json')
      .send(send(rows[0]?.j ?? 'null'));
  });
  app.patch('/patch/:id', async (request, reply) => {
    const body = request.body as { version: number; notes: string };
    const { rows } = await pool.query<{ j: string }>({
      name: 'patch',
      text: `UPDATE ${table} SET notes = $3, updated_by = $4, updated_at = now(), version = version + 1
             WHERE id = $1 AND version = $2 AND deleted_at IS NULL
             RETURNING json_build_object('id', id, 'notes', notes, 'version', version, 'updated_at', ${ts('updated_at')}, 'updated_by', updated_by)::text AS j`,
      values: [(request.params as { id: string }).id, body.version, body.notes, 'bench'],
    });
    if (!rows[0]) return reply.status(409).send({ code: 'OPTIMISTIC_LOCK_FAILED' });
    return reply.type('application/json').send(send(rows[0].j));
  });
  return app.listen({ host: '127.0.0.1', port: 0 });
}

async function weft(): Promise<string> {
  const config = loadConfig({
    RECORDS_DATABASE_URL: databaseUrl,
    RECORDS_RESOURCES_DIR: examplesResourcesDir,
    RECORDS_JWT_SECRET: process.env.BENCH_JWT_SECRET ?? '',
    RECORDS_RATE_LIMIT_PER_MINUTE: '1000000000',
    WEFT_LOG_LEVEL: 'warn',
  });
  const logger = createLogger('warn');
  const pool = createPool(databaseUrl, { max: poolSize, applicationName: 'bench-records', logger });
  const service = await createRecordsService({ config, pool, logger });
  return service.app.listen({ host: '127.0.0.1', port: 0 });
}

// A clean exit on SIGTERM, so BENCH_PROFILE's CPU profile is written.
process.once('SIGTERM', () => process.exit(0));
const address = process.env.BENCH_MODE === 'floor' ? await floor() : await weft();
process.stdout.write(`READY ${new URL(address).port}\n`);
