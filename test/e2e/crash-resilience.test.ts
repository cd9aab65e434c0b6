import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { freePort } from '../helpers/ports.js';
import { builtCli, exitOf, spawnCli, startCli, stopCli, type CliProcess } from './support/weft-cli.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 200 ms until it returns true or `timeoutMs` passes. */
async function eventually(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

describe('one weft process per data dir, and no lost connection ends it', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let ports: { workflow: number; records: number; postgres: number };
  let first: CliProcess;
  let superuserPassword: string;
  const health = () => fetch(`http://127.0.0.1:${ports.workflow}/health`).then((response) => response.status);
  const postmasterPid = async () =>
    (await readFile(path.join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8')).split('\n')[0];
  const superuser = async (database: string) => {
    const client = new pg.Client({
      connectionString: `postgres://postgres:${encodeURIComponent(superuserPassword)}@127.0.0.1:${ports.postgres}/${database}`,
    });
    client.on('error', () => undefined);
    await client.connect();
    return client;
  };

  before(async () => {
    assert.ok(existsSync(builtCli), 'dist/cli.js exists (npm test builds it before running the tests)');
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'weft-crash-'));
    ports = { workflow: await freePort(), records: await freePort(), postgres: await freePort() };
    env = {
      WEFT_DATA_DIR: dataDir,
      WORKFLOW_PORT: String(ports.workflow),
      RECORDS_PORT: String(ports.records),
      WEFT_EMBEDDED_POSTGRES_PORT: String(ports.postgres),
    };
    first = await startCli(env);
    superuserPassword = (await readFile(path.join(dataDir, 'postgres', 'password'), 'utf8')).trim();
  });

  after(async () => {
    if (first) await stopCli(first.child);
    await rm(dataDir, { recursive: true, force: true });
  });

  test('a second weft start on the same data dir refuses with one clear line and leaves the first running', async () => {
    const serverBefore = await postmasterPid();
    const second = spawnCli(['start'], env);
    const code = await exitOf(second.child, 60_000);
    assert.notEqual(code, undefined, 'the second start exits');
    assert.notEqual(code, 0, 'with a non-zero status');
    assert.match(
      second.output(),
      new RegExp(
        `weft: the embedded PostgreSQL in .* is in use by a running weft process \\(pid ${first.child.pid}\\)`,
      ),
    );
    assert.equal(first.child.exitCode, null, 'the first process is still running');
    assert.equal(await health(), 200, 'and still answers /health with its database');
    assert.equal(await postmasterPid(), serverBefore, 'on the same PostgreSQL server as before');

    // The commands that open the database join the running cluster rather than refusing.
    const join = spawnCli(['records', 'api-key', 'list'], env);
    assert.equal(await exitOf(join.child, 60_000), 0, join.output());
    assert.equal(await health(), 200);
  });

  test('terminating every backend of the service, a transaction in flight included, does not end the process', async () => {
    // Hold the timer table so the leader's timer executor waits inside a checked-out connection:
    // a connection the pool is not listening to, the one whose loss used to end the process.
    const locker = await superuser('workflow');
    const admin = await superuser('postgres');
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE timer_jobs IN ACCESS EXCLUSIVE MODE');
      await eventually(
        async () =>
          ((
            await admin.query(
              `SELECT 1 FROM pg_stat_activity WHERE application_name LIKE 'weft-workflow%' AND wait_event_type = 'Lock'`,
            )
          ).rowCount ?? 0) > 0,
        30_000,
        'a workflow transaction waiting on the lock',
      );
      const { rows } = await admin.query<{ name: string }>(
        `SELECT application_name AS name, pg_terminate_backend(pid)
           FROM pg_stat_activity WHERE application_name LIKE 'weft-%' AND pid <> pg_backend_pid()`,
      );
      const names = new Set(rows.map((row) => row.name));
      for (const name of ['weft-task-notifier', 'weft-outbox-listener', 'weft-timer-leader'])
        assert.ok(names.has(name), `${name} was terminated (${[...names].join(', ')})`);
      await locker.query('ROLLBACK');
    } finally {
      await locker.end().catch(() => undefined);
    }

    try {
      await sleep(2_000);
      assert.equal(
        first.child.exitCode,
        null,
        `the process is still running:\n${first.output().slice(-2_000)}`,
      );
      await eventually(async () => (await health()) === 200, 15_000, '/health to answer 200 again');
      // The LISTEN connections come back on their own.
      await eventually(
        async () =>
          (
            await admin.query(
              `SELECT DISTINCT application_name FROM pg_stat_activity
                WHERE application_name IN ('weft-task-notifier', 'weft-outbox-listener')`,
            )
          ).rowCount === 2,
        20_000,
        'the LISTEN connections to reconnect',
      );
      assert.equal(first.child.exitCode, null);
      assert.match(first.output(), /database connection failed|LISTEN connection lost/);
      const runtimePassword = await readFile(
        path.join(dataDir, 'postgres', 'weft_workflow_service.password'),
        'utf8',
      );
      for (const secret of [superuserPassword, runtimePassword.trim()])
        assert.ok(!first.output().includes(secret), 'no password in the log');
    } finally {
      await admin.end().catch(() => undefined);
    }
  });
});
