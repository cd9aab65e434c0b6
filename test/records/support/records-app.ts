import { cp, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import type { LightMyRequestResponse } from 'fastify';
import type { Clock } from '../../../src/platform/clock.js';
import { loadConfig } from '../../../src/platform/config/index.js';
import { createPool, type Pool } from '../../../src/platform/database/pool.js';
import type { Logger } from '../../../src/platform/logging/logger.js';
import type { AccessControl } from '../../../src/records/access/access-control.js';
import { createRecordsService, type RecordsService } from '../../../src/records/index.js';
import { examplesResourcesDir } from '../../../src/records/schemas/examples-dir.js';
import { createMigratedDatabase, type TestDatabase } from '../../helpers/database.js';
import { captureLogs } from '../../helpers/log-capture.js';
import { asRecordsRuntimeLogin } from '../../helpers/runtime-login.js';

/** The HS256 key test JWTs are signed with. */
export const testJwtSecret = 'records-test-secret-0123456789abcdef0123';
/** Schema paths of the bundled examples. */
export const ordersPath = 'acme/procurement/purchasing/purchase-orders/v1';
export const suppliersPath = 'acme/procurement/sourcing/suppliers/v1';
/**
 * The supplier `purchaseOrder()` refers to: seeded by `startRecordsApp` when the examples are, since
 * `supplier_id` is a reference field and the database refuses ids with no supplier behind them.
 */
export const seededSupplierId = '3f1c2a4e-8d2b-4c55-9a0e-0d6c1e2f3a4b';
const suppliersTable = 'rec_acme.procurement__sourcing__suppliers__v1';

/** A records service on its own database, with a resources folder seeded from the examples. */
export interface RecordsTestApp {
  service: RecordsService;
  database: TestDatabase;
  resourcesDir: string;
  /** A JWT for `actor` with `roles`. */
  token(actor?: string, roles?: string[]): Promise<string>;
  /** Sends a request as `actor` (roles default to admin). */
  call(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    options?: { body?: unknown; headers?: Record<string, string>; actor?: string; roles?: string[] },
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** Starts a records test app; `env` adds configuration. */
export async function startRecordsApp(
  env: Record<string, string> = {},
  options: {
    pool?: (database: TestDatabase) => Promise<Pool>;
    seedExamples?: boolean;
    clock?: Clock;
    /** Resource files (name → YAML) written before the service starts. */
    resources?: Record<string, string>;
    /** Reuse this database instead of creating one (it is then not dropped on close). */
    database?: TestDatabase;
    access?: AccessControl;
    /** Log here instead of discarding (RECORDS_TEST_LOG still wins). */
    logger?: Logger;
  } = {},
): Promise<RecordsTestApp> {
  const database = options.database ?? (await createMigratedDatabase('records'));
  const resourcesDir = await mkdtemp(path.join(os.tmpdir(), 'weft-resources-'));
  if (options.seedExamples !== false) await cp(examplesResourcesDir, resourcesDir, { recursive: true });
  for (const [name, text] of Object.entries(options.resources ?? {}))
    await writeFile(path.join(resourcesDir, name), text);
  const config = loadConfig({
    WEFT_DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'weft-records-')),
    RECORDS_RESOURCES_DIR: resourcesDir,
    RECORDS_JWT_SECRET: testJwtSecret,
    RECORDS_JWT_ISSUER: 'https://issuer.test',
    ...env,
  });
  // Requests run as a login that owns nothing (as in production); the database's owner pool
  // applies resources and runs the jobs.
  const pool = options.pool
    ? await options.pool(database)
    : createPool(asRecordsRuntimeLogin(database.url), {
        max: 10,
        applicationName: 'weft-test-runtime',
        timeouts: config.databaseTimeouts,
      });
  const service = await createRecordsService({
    config,
    pool,
    ownerPool: database.pool,
    logger: process.env.RECORDS_TEST_LOG
      ? (await import('../../../src/platform/logging/logger.js')).createLogger(process.env.RECORDS_TEST_LOG)
      : (options.logger ?? captureLogs('fatal').logger),
    schemaPollMilliseconds: 100,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.access ? { access: options.access } : {}),
  });
  await seedSupplier(database.pool);
  const tokens = new Map<string, string>();
  const token = async (actor = 'alice', roles = ['admin']) => {
    const key = `${actor}|${roles.join(',')}`;
    const known = tokens.get(key);
    if (known) return known;
    const signed = await new SignJWT({ roles })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(actor)
      .setIssuer('https://issuer.test')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(testJwtSecret));
    tokens.set(key, signed);
    return signed;
  };
  return {
    service,
    database,
    resourcesDir,
    token,
    call: async (method, url, callOptions = {}) =>
      service.app.inject({
        method,
        url,
        headers: {
          authorization: `Bearer ${await token(callOptions.actor, callOptions.roles)}`,
          ...callOptions.headers,
        },
        ...(callOptions.body !== undefined ? { payload: callOptions.body as object } : {}),
      }),
    close: async () => {
      await service.close();
      if (pool !== database.pool) await pool.end().catch(() => undefined);
      if (!options.database) await database.drop();
    },
  };
}

async function seedSupplier(pool: Pool): Promise<void> {
  const { rows } = await pool.query<{ present: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS present`, [
    suppliersTable,
  ]);
  if (!rows[0]?.present) return;
  await pool.query(
    `INSERT INTO ${suppliersTable} (id, created_by, updated_by, name, country)
     VALUES ($1, 'seed', 'seed', 'Seeded Supplier', 'DE') ON CONFLICT (id) DO NOTHING`,
    [seededSupplierId],
  );
}

/** A valid purchase order body (its supplier is the seeded one). */
export function purchaseOrder(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    po_number: `PO-${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`,
    supplier_id: seededSupplierId,
    currency: 'EUR',
    amount: 1250.5,
    ...overrides,
  };
}

/** A response body, typed loosely enough for assertions on success and error envelopes. */
export interface Body {
  code: string;
  message: string;
  requestId: string;
  status: string;
  details: { errors: { field: string; reason: string }[]; field?: string; current_version?: number };
  data: Record<string, unknown> & { id: string; version: number; [field: string]: unknown };
  pagination: { cursor: string | null; has_more: boolean; total?: number };
}
