import assert from 'node:assert/strict';
import { mkdir, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { examplesResourcesDir, resolveResourcesDir } from '../../src/records/schemas/examples-dir.js';

describe('which resources folder a start serves', () => {
  const started = process.cwd();
  let empty: string;
  before(async () => {
    empty = await mkdtemp(path.join(os.tmpdir(), 'weft-no-resources-'));
    process.chdir(empty);
  });
  after(() => process.chdir(started));

  test('a production start without ./resources serves no folder (never the demo schemas)', () => {
    assert.deepEqual(resolveResourcesDir(undefined, { production: true }), {
      directory: undefined,
      examples: false,
    });
  });

  test('a development start without ./resources serves the bundled examples', () => {
    assert.deepEqual(resolveResourcesDir(undefined, { production: false }), {
      directory: examplesResourcesDir,
      examples: true,
    });
  });

  test('production asks for the examples only by naming them; ./resources wins when present', async () => {
    assert.equal(
      resolveResourcesDir(examplesResourcesDir, { production: true }).directory,
      examplesResourcesDir,
    );
    await mkdir(path.join(empty, 'resources'));
    assert.deepEqual(resolveResourcesDir(undefined, { production: true }), {
      directory: path.join(await import('node:fs/promises').then((fs) => fs.realpath(empty)), 'resources'),
      examples: false,
    });
  });
});
