import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { claimCluster, ClusterInUseError } from '../../src/platform/database/cluster-owner.js';

const folders: string[] = [];
after(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

async function folder(): Promise<string> {
  const created = await mkdtemp(path.join(os.tmpdir(), 'weft-owner-'));
  folders.push(created);
  return created;
}

/** A live process that is not this one (a sleeping node), stopped by the returned function. */
function otherProcess(): { pid: number; stop: () => void } {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  if (child.pid === undefined) throw new Error('could not spawn a process');
  return { pid: child.pid, stop: () => child.kill('SIGKILL') };
}

function startTimeOf(pid: number): Promise<string | undefined> {
  return readFile(`/proc/${pid}/stat`, 'utf8').then(
    (stat) => stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19],
    () => undefined,
  );
}

test('a folder is claimed with an owner file naming this process, removed on release', async () => {
  const directory = await folder();
  const claim = await claimCluster(directory);
  const owner = JSON.parse(await readFile(path.join(directory, 'weft.pid'), 'utf8')) as { pid: number };
  assert.equal(owner.pid, process.pid);
  await claim.release();
  assert.equal(existsSync(path.join(directory, 'weft.pid')), false);
});

test('a folder owned by another live process is refused, and its owner file left as it was', async () => {
  const directory = await folder();
  const other = otherProcess();
  try {
    const text = JSON.stringify({ pid: other.pid, startTime: await startTimeOf(other.pid) });
    await writeFile(path.join(directory, 'weft.pid'), text);
    await assert.rejects(claimCluster(directory), (error: unknown) => {
      assert.ok(error instanceof ClusterInUseError);
      assert.match(error.message, new RegExp(`in use by a running weft process \\(pid ${other.pid}\\)`));
      return true;
    });
    assert.equal(await readFile(path.join(directory, 'weft.pid'), 'utf8'), text);
  } finally {
    other.stop();
  }
});

test('an owner file naming a dead process, or a pid now used by another process, is taken over', async () => {
  const directory = await folder();
  const dead = otherProcess();
  dead.stop();
  await new Promise((resolve) => setTimeout(resolve, 200));
  await writeFile(path.join(directory, 'weft.pid'), JSON.stringify({ pid: dead.pid }));
  const claim = await claimCluster(directory);
  await claim.release();

  const reused = otherProcess();
  try {
    // Same pid, another start time: the owner it named is gone.
    await writeFile(path.join(directory, 'weft.pid'), JSON.stringify({ pid: reused.pid, startTime: '1' }));
    const again = await claimCluster(directory);
    const owner = JSON.parse(await readFile(path.join(directory, 'weft.pid'), 'utf8')) as { pid: number };
    assert.equal(owner.pid, process.pid);
    await again.release();
  } finally {
    reused.stop();
  }
});
