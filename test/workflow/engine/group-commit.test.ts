import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GroupCommit, type GroupOutcome } from '../../../src/workflow/engine/driver/group-commit.js';

/** A GroupCommit whose writes are recorded and finish when the test says so. */
function recordingQueue(options: {
  maxBatch: number;
  key?: (item: string) => string;
  failsQueued?: (error: unknown) => boolean;
}) {
  const batches: string[][] = [];
  const finishers: (() => void)[] = [];
  const queue = new GroupCommit<string, string>(async (items) => {
    batches.push(items);
    await new Promise<void>((resolve) => finishers.push(resolve));
    if (items.includes('boom')) throw new Error('the statement failed');
    return items.map((item): GroupOutcome<string> =>
      item.startsWith('bad')
        ? { ok: false, error: new Error(item) }
        : { ok: true, value: item.toUpperCase() },
    );
  }, options);
  const finishNext = async () => {
    while (finishers.length === 0) await new Promise((resolve) => setImmediate(resolve));
    finishers.shift()?.();
  };
  return { queue, batches, finishNext };
}

test('a lone item is written at once; items that arrive during a write go together in the next', async () => {
  const { queue, batches, finishNext } = recordingQueue({ maxBatch: 10 });
  const first = queue.push('a');
  assert.deepEqual(batches, [['a']], 'written without waiting for company');
  const later = ['b', 'c', 'd'].map((item) => queue.push(item));
  await finishNext();
  assert.equal(await first, 'A');
  await finishNext();
  assert.deepEqual(await Promise.all(later), ['B', 'C', 'D']);
  assert.deepEqual(batches, [['a'], ['b', 'c', 'd']]);
});

test('batches hold at most maxBatch items, and never two items of one key', async () => {
  const { queue, batches, finishNext } = recordingQueue({ maxBatch: 2, key: (item) => item[0] ?? '' });
  const all = [queue.push('x0'), queue.push('a1'), queue.push('a2'), queue.push('b1'), queue.push('c1')];
  for (let i = 0; i < 3; i++) await finishNext();
  await Promise.all(all);
  assert.deepEqual(batches, [['x0'], ['a1', 'b1'], ['a2', 'c1']]);
});

test('each item gets its own outcome; a write that throws fails every item of its batch only', async () => {
  const { queue, finishNext } = recordingQueue({ maxBatch: 10 });
  const lone = queue.push('ok');
  const failed = [queue.push('boom'), queue.push('x')];
  await finishNext();
  await finishNext();
  assert.equal(await lone, 'OK');
  for (const item of failed) await assert.rejects(item, /the statement failed/);
  const blocker = queue.push('z');
  const mixed = [queue.push('y'), queue.push('bad-one')];
  await finishNext();
  await finishNext();
  assert.equal(await blocker, 'Z');
  assert.equal(await mixed[0], 'Y', 'its batch-mate failed on its own');
  await assert.rejects(mixed[1] as Promise<string>, /bad-one/);
});

test('a batch that failed for a reason every item meets (failsQueued) fails the queued items at once', async () => {
  const unreachable = (error: unknown) => error instanceof Error && error.message === 'the statement failed';
  const { queue, batches, finishNext } = recordingQueue({ maxBatch: 10, failsQueued: unreachable });
  const first = queue.push('boom');
  const queued = ['b', 'c'].map((item) => queue.push(item));
  const settled = Promise.allSettled(queued);
  await finishNext();
  await assert.rejects(first, /the statement failed/);
  const outcomes = await settled;
  assert.deepEqual(
    outcomes.map((outcome) => outcome.status === 'rejected' && (outcome.reason as Error).message),
    ['the statement failed', 'the statement failed'],
  );
  assert.deepEqual(batches, [['boom']], 'the queued items were not written in a batch of their own');
  const afterwards = queue.push('d');
  await finishNext();
  assert.equal(await afterwards, 'D', 'a later item is written again');
});

test('an item-specific failure does not fail the queued items', async () => {
  const unreachable = (error: unknown) => error instanceof Error && error.message === 'the statement failed';
  const { queue, batches, finishNext } = recordingQueue({ maxBatch: 10, failsQueued: unreachable });
  const first = queue.push('bad-1');
  const queued = queue.push('b');
  await finishNext();
  await assert.rejects(first, /bad-1/);
  await finishNext();
  assert.equal(await queued, 'B');
  assert.deepEqual(batches, [['bad-1'], ['b']]);
});
