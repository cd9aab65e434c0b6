import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createMigratedDatabase, type TestDatabase } from '../helpers/database.js';
import { freePort } from '../helpers/ports.js';

const repository = fileURLToPath(new URL('../../', import.meta.url));
const admin = { email: 'admin@example.com', password: 'idempotent crash admin password' };

interface Service {
  child: ChildProcess;
  base: string;
  output: () => string;
}

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe('idempotent starts across a SIGKILL of the workflow process', () => {
  let db: TestDatabase;
  let dataDir: string;
  let service: Service;
  let token: string;
  let orgId: string;

  /** Starts `weft workflow` from the sources as its own process on the test database. */
  const startService = async (): Promise<Service> => {
    const port = await freePort();
    let output = '';
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'workflow'], {
      cwd: repository,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        WORKFLOW_DATABASE_URL: db.url,
        WORKFLOW_PORT: String(port),
        WEFT_DATA_DIR: dataDir,
        WORKFLOW_JWT_SIGNING_KEY: 'idempotent-crash-signing-key-0123456789abcdef',
        WORKFLOW_BOOTSTRAP_ADMIN_EMAIL: admin.email,
        WORKFLOW_BOOTSTRAP_ADMIN_PASSWORD: admin.password,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(
      'the service to listen',
      () => {
        if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}:\n${output}`);
        return output.includes('workflow listening');
      },
      60_000,
    );
    return { child, base: `http://127.0.0.1:${port}`, output: () => output };
  };
  const kill = async (target: Service) => {
    const exited = new Promise((resolve) => target.child.once('exit', resolve));
    target.child.kill('SIGKILL');
    await exited;
  };
  const call = async (method: string, url: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${service.base}${url}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: await response.text() };
  };
  const startWithKey = (businessKey: string, key: string) =>
    call(
      'POST',
      '/api/v1/process-instances',
      { org_id: orgId, process_key: 'payment', business_key: businessKey, variables: { amount: 42 } },
      { 'idempotency-key': key },
    );
  const instancesWith = async (businessKey: string) =>
    (
      await db.pool.query<{ id: string }>('SELECT id FROM process_instances WHERE business_key = $1', [
        businessKey,
      ])
    ).rows.map((row) => row.id);

  before(async () => {
    db = await createMigratedDatabase('workflow');
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'weft-idempotent-crash-'));
    service = await startService();
    token = '';
    const login = await call('POST', '/api/v1/auth/login', admin);
    token = String((JSON.parse(login.body) as { access_token: string }).access_token);
    const org = await call('POST', '/api/v1/orgs', { name: 'Crash', slug: 'crash' });
    orgId = String((JSON.parse(org.body) as { id: string }).id);
    const group = await call('POST', `/api/v1/orgs/${orgId}/process-groups`, { name: 'default' });
    const xml = await readFile(new URL('./engine/api/fixtures/payment.bpmn', import.meta.url), 'utf8');
    const deployed = await call('POST', '/api/v1/deployments', {
      org_id: orgId,
      process_group_id: String((JSON.parse(group.body) as { id: string }).id),
      xml,
    });
    assert.equal(deployed.status, 201, deployed.body);
  });
  after(async () => {
    if (service?.child.exitCode === null) await kill(service);
    await rm(dataDir, { recursive: true, force: true });
    await db?.drop();
  });

  test('killed right after the start committed: the retry replays the committed start, one instance', async () => {
    const pending = startWithKey('crash-after-commit', 'crash-key-1').catch(() => null);
    await waitFor(
      'the keyed start to commit',
      async () =>
        (
          await db.pool.query(
            "SELECT 1 FROM idempotency_keys WHERE key = 'crash-key-1' AND response_status IS NOT NULL",
          )
        ).rowCount === 1,
      30_000,
    );
    await kill(service);
    const first = await pending;
    service = await startService();

    const retried = await startWithKey('crash-after-commit', 'crash-key-1');
    assert.equal(retried.status, 201, retried.body);
    assert.equal(retried.headers.get('idempotent-replayed'), 'true');
    const ids = await instancesWith('crash-after-commit');
    assert.equal(ids.length, 1, 'exactly one instance');
    assert.equal((JSON.parse(retried.body) as { id: string }).id, ids[0]);
    if (first !== null) assert.equal(retried.body, first.body, 'the same answer as the first attempt got');
  });

  test('killed while the start was still in its transaction: nothing committed, the retry starts it once', async () => {
    // Hold the process key's counter row: the start claims its key, then waits on this lock.
    const blocker = await db.pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(
        "SELECT 1 FROM process_keys WHERE org_id = $1 AND process_key = 'payment' FOR UPDATE",
        [orgId],
      );
      const pending = startWithKey('crash-in-flight', 'crash-key-2').catch(() => null);
      await waitFor(
        'the start to wait inside its transaction',
        async () =>
          (
            await db.pool.query(
              `SELECT 1 FROM pg_stat_activity
               WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
            )
          ).rowCount === 1,
        30_000,
      );
      await kill(service);
      assert.equal(await pending, null, 'the client saw the connection fail');
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    await waitFor(
      'the killed backend to end its transaction',
      async () =>
        (
          await db.pool.query(
            "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%' AND pid <> pg_backend_pid()",
          )
        ).rowCount === 0,
      30_000,
    );
    assert.deepEqual(await instancesWith('crash-in-flight'), [], 'nothing of the start committed');
    const keys = await db.pool.query("SELECT 1 FROM idempotency_keys WHERE key = 'crash-key-2'");
    assert.equal(keys.rowCount, 0, 'nor its key');

    service = await startService();
    const retried = await startWithKey('crash-in-flight', 'crash-key-2');
    assert.equal(retried.status, 201, retried.body);
    assert.equal(retried.headers.get('idempotent-replayed'), null, 'the retry ran the start');
    const ids = await instancesWith('crash-in-flight');
    assert.equal(ids.length, 1, 'exactly one instance');
    const again = await startWithKey('crash-in-flight', 'crash-key-2');
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.body, retried.body);
  });
});
