import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort, isListening } from '../helpers/ports.js';

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

interface Started {
  child: ChildProcess;
  output: () => string;
}

async function startCli(env: Record<string, string>): Promise<Started> {
  let output = '';
  const child = spawn(process.execPath, [cli, 'start'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 90_000;
  while (!output.includes('records listening')) {
    if (child.exitCode !== null) throw new Error(`weft start exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`weft start did not come up in time:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, output: () => output };
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('the built CLI', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  test('weft start on a fresh data dir serves /health and a login over a real socket, shuts down cleanly on SIGTERM, and keeps its data across a restart', async () => {
    assert.ok(existsSync(cli), 'dist/cli.js exists (npm test builds it before running the tests)');
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'weft-e2e-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const ports = { workflow: await freePort(), records: await freePort(), postgres: await freePort() };
    const env = {
      WEFT_DATA_DIR: dataDir,
      WORKFLOW_PORT: String(ports.workflow),
      RECORDS_PORT: String(ports.records),
      WEFT_EMBEDDED_POSTGRES_PORT: String(ports.postgres),
    };
    const base = `http://127.0.0.1:${ports.workflow}`;

    const first = await startCli({
      ...env,
      WORKFLOW_BOOTSTRAP_ADMIN_EMAIL: 'e2e@example.com',
      WORKFLOW_BOOTSTRAP_ADMIN_PASSWORD: 'e2e password 1',
    });
    cleanup.push(() => stop(first.child));
    const health = await fetch(`${base}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok', database: 'ok' });
    const records = await fetch(`http://127.0.0.1:${ports.records}/api/healthz`);
    assert.equal(records.status, 200);
    const login = await fetch(`${base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'e2e@example.com', password: 'e2e password 1' }),
    });
    assert.equal(login.status, 200);
    const { access_token } = (await login.json()) as { access_token: string };
    const me = await fetch(`${base}/api/v1/me`, { headers: { authorization: `Bearer ${access_token}` } });
    assert.equal(me.status, 200);
    assert.equal(((await me.json()) as { email: string }).email, 'e2e@example.com');
    assert.ok(!first.output().includes('e2e password 1'), 'the bootstrap password is not logged');

    assert.equal(await stop(first.child), 0, 'SIGTERM exits with 0');
    assert.equal(await isListening(ports.postgres), false, 'the embedded PostgreSQL is stopped');
    assert.equal(await isListening(ports.workflow), false);

    // Second start without the bootstrap variables: the user created before must still be there.
    const second = await startCli(env);
    cleanup.push(() => stop(second.child));
    const again = await fetch(`${base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'e2e@example.com', password: 'e2e password 1' }),
    });
    assert.equal(again.status, 200, 'the database survived the restart');
    assert.doesNotMatch(second.output(), /no users exist/);
    assert.equal(await stop(second.child), 0);
  });
});
