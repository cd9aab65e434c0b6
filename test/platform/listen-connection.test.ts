import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { ListenConnection } from '../../src/platform/database/listen-connection.js';
import { createEmptyDatabase, type TestDatabase } from '../helpers/database.js';
import { captureLogs } from '../helpers/log-capture.js';

let db: TestDatabase;
before(async () => (db = await createEmptyDatabase()));
after(() => db.drop());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function backendsOf(applicationName: string): Promise<number[]> {
  const { rows } = await db.pool.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
    [applicationName],
  );
  return rows.map((row) => row.pid);
}

test('a LISTEN connection whose backend is terminated logs it, reconnects and hears notifications again', async () => {
  const logs = captureLogs('info');
  const heard: string[] = [];
  let reconnected = 0;
  const listener = new ListenConnection({
    connectionString: db.url,
    channels: ['weft_listen_test'],
    applicationName: 'weft-listen-test',
    onNotification: (_channel, payload) => heard.push(payload ?? ''),
    onReconnected: () => reconnected++,
    logger: logs.logger,
    retryMs: 50,
  });
  await listener.start();
  try {
    await db.pool.query(`SELECT pg_notify('weft_listen_test', 'before')`);
    for (let i = 0; i < 100 && !heard.includes('before'); i++) await sleep(20);
    assert.deepEqual(heard, ['before']);

    const [pid] = await backendsOf('weft-listen-test');
    assert.ok(pid !== undefined);
    await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
    for (let i = 0; i < 200 && reconnected === 0; i++) await sleep(20);
    assert.equal(reconnected, 1, 'reconnected once');
    const now = await backendsOf('weft-listen-test');
    assert.equal(now.length, 1, 'one connection, not one per error event');
    assert.notEqual(now[0], pid);

    await db.pool.query(`SELECT pg_notify('weft_listen_test', 'after')`);
    for (let i = 0; i < 100 && !heard.includes('after'); i++) await sleep(20);
    assert.deepEqual(heard, ['before', 'after']);
    const [lost] = logs.messages(/LISTEN connection lost/);
    assert.equal((lost?.err as { code?: string } | undefined)?.code, '57P01');
    assert.doesNotMatch(logs.text(), /connectionParameters|password/);
  } finally {
    await listener.close();
  }
  await sleep(100);
  assert.deepEqual(await backendsOf('weft-listen-test'), [], 'close ends the connection for good');
});

test('a LISTEN connection keeps retrying while the database refuses, and stops when closed', async () => {
  const logs = captureLogs('info');
  const url = new URL(db.url);
  const listener = new ListenConnection({
    connectionString: db.url,
    channels: ['weft_listen_test'],
    applicationName: 'weft-listen-retry',
    onNotification: () => undefined,
    logger: logs.logger,
    retryMs: 50,
    maxRetryMs: 100,
  });
  await listener.start();
  // Refuse new connections to this database for a while (from another database: PostgreSQL will
  // not change the one it is connected to), then terminate the listener's backend.
  const database = `"${decodeURIComponent(url.pathname.slice(1)).replace(/"/g, '""')}"`;
  const admin = new pg.Client({ connectionString: process.env.WEFT_TEST_ADMIN_URL });
  await admin.connect();
  await admin.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS false`);
  try {
    const [pid] = await backendsOf('weft-listen-retry');
    await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
    for (let i = 0; i < 100 && logs.messages(/cannot reconnect yet/).length === 0; i++) await sleep(20);
    assert.equal(logs.messages(/cannot reconnect yet/).length, 1, 'the outage is logged once');
  } finally {
    await admin.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS true`);
    await admin.end();
  }
  try {
    for (let i = 0; i < 100 && logs.messages(/LISTEN connection restored/).length === 0; i++) await sleep(20);
    assert.equal(logs.messages(/LISTEN connection restored/).length, 1, 'back once the database accepts');
    assert.equal((await backendsOf('weft-listen-retry')).length, 1);
  } finally {
    await listener.close();
  }
});
