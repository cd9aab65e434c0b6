import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  createPool,
  isDatabaseUnavailable,
  pgErrorCode,
  withTransaction,
} from '../../src/platform/database/pool.js';
import { createMigratedDatabase, type TestDatabase } from '../helpers/database.js';
import { captureLogs } from '../helpers/log-capture.js';

let db: TestDatabase;
before(async () => (db = await createMigratedDatabase('workflow')));
after(() => db.drop());

test('an idle connection the server ends is logged by its message and code, without its client', async () => {
  const logs = captureLogs('warn');
  const pool = createPool(db.url, { max: 1, applicationName: 'weft-pool-test', logger: logs.logger });
  try {
    const client = await pool.connect();
    const pid = (client as unknown as { processID: number }).processID;
    client.release();
    await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
    for (let i = 0; i < 100 && logs.messages(/database connection failed/).length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const [line] = logs.messages(/database connection failed/);
    const err = line?.err as { message?: string; code?: string } | undefined;
    assert.equal(err?.message, 'terminating connection due to administrator command');
    assert.equal(err?.code, '57P01');
    assert.doesNotMatch(logs.text(), /connectionParameters|parsedStatements/);
    assert.equal((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one, 1, 'the pool recovers');
  } finally {
    await pool.end();
  }
});

test('a checked-out connection whose backend is terminated mid-transaction fails its work, not the process', async () => {
  const logs = captureLogs('warn');
  const pool = createPool(db.url, { max: 1, applicationName: 'weft-pool-test', logger: logs.logger });
  try {
    const client = await pool.connect();
    await client.query('BEGIN');
    const pid = (client as unknown as { processID: number }).processID;
    // Checked out and between two statements: the pool is not listening to this connection.
    await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
    for (let i = 0; i < 100 && logs.messages(/database connection failed/).length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const [line] = logs.messages(/database connection failed/);
    assert.equal((line?.err as { code?: string } | undefined)?.code, '57P01');
    assert.equal(line?.connection, 'weft-pool-test');
    const failure = await client.query('SELECT 1').then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(failure instanceof Error, 'the next statement on the lost connection fails');
    client.release();
    assert.equal((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one, 1, 'the pool recovers');
    assert.doesNotMatch(logs.text(), /connectionParameters|password/);
  } finally {
    await pool.end();
  }
});

test('a connection terminated during a statement rejects that statement and ends nothing else', async () => {
  const pool = createPool(db.url, { max: 2, applicationName: 'weft-pool-test-busy' });
  try {
    const client = await pool.connect();
    const pid = (client as unknown as { processID: number }).processID;
    const sleeping = client.query('SELECT pg_sleep(30)').then(
      () => undefined,
      (error: unknown) => error,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
    const failure = await sleeping;
    assert.equal((failure as { code?: string } | undefined)?.code, '57P01');
    // pg emits 'error' again when the socket then closes; give it the time to.
    await new Promise((resolve) => setTimeout(resolve, 200));
    client.release();
    assert.equal((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one, 1);
  } finally {
    await pool.end();
  }
});

test('a statement past the pool’s statement timeout fails fast as “unavailable” (503) and the pool keeps serving', async () => {
  const pool = createPool(db.url, {
    max: 1,
    applicationName: 'weft-pool-test-timeout',
    timeouts: { statementMs: 200, connectMs: 1000 },
  });
  try {
    const started = performance.now();
    const failure = await pool.query('SELECT pg_sleep(5)').then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(performance.now() - started < 2000, 'the server cancelled it');
    assert.equal(pgErrorCode(failure), '57014');
    assert.equal(isDatabaseUnavailable(failure), true);
    assert.equal((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one, 1);
    const inTransaction = await withTransaction(pool, (client) => client.query('SELECT pg_sleep(5)')).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.equal(pgErrorCode(inTransaction), '57014');
    assert.equal((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one, 1);
  } finally {
    await pool.end();
  }
});

test('a pool whose connections are all busy answers “unavailable” after the connect timeout instead of queueing forever', async () => {
  const pool = createPool(db.url, {
    max: 1,
    applicationName: 'weft-pool-test-wait',
    timeouts: { statementMs: 5000, connectMs: 300 },
  });
  const busy = await pool.connect();
  try {
    const started = performance.now();
    const failure = await pool.query('SELECT 1').then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(performance.now() - started < 1500);
    assert.equal(isDatabaseUnavailable(failure), true);
  } finally {
    busy.release();
    await pool.end();
  }
});
