import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLevel, type Row } from './tck-runner.js';
import { conformanceSuite } from '../../helpers/conformance.js';

// Floors count test cases (a case passes when every one of its result nodes does); they only go up.
const LEVEL2_FLOOR = 116;
const LEVEL3_FLOOR = 1230;

const { directory: KIT, skip: kitMissing } = conformanceSuite('dmn-tck');

function csvField(text: string): string {
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

test(
  'DMN TCK compliance levels 2 and 3 (counted per test case)',
  {
    skip: kitMissing,
  },
  () => {
    const all: Row[] = [];
    const counts: Record<string, number> = {};
    for (const [label, level] of [
      ['2', 'compliance-level-2'],
      ['3', 'compliance-level-3'],
    ] as const) {
      const rows = runLevel(join(KIT, level));
      all.push(...rows);
      const passed = rows.filter((r) => r.result === 'SUCCESS').length;
      const failed = rows.filter((r) => r.result === 'FAILURE').length;
      const errored = rows.filter((r) => r.result === 'ERROR').length;
      counts[label] = passed;
      console.log(
        `dmn tck level ${label}: ${passed} passed, ${failed} failed, ${errored} errored of ${rows.length} test cases`,
      );
      for (const r of rows.filter((row) => row.result !== 'SUCCESS')) {
        console.log(`  ${r.result} ${r.folder} ${r.testCase}: ${r.notes.slice(0, 200)}`);
      }
    }
    const csv = all.map((r) => [r.folder, r.testCase, r.result, r.notes].map(csvField).join(',')).join('\n');
    const out = join(tmpdir(), 'tck_results.csv');
    writeFileSync(out, `${csv}\n`);
    console.log(`dmn tck results written to ${out}`);
    assert.ok((counts['2'] ?? 0) >= LEVEL2_FLOOR, `level 2 passed ${counts['2']} < floor ${LEVEL2_FLOOR}`);
    assert.ok((counts['3'] ?? 0) >= LEVEL3_FLOOR, `level 3 passed ${counts['3']} < floor ${LEVEL3_FLOOR}`);
  },
);
