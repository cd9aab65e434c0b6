import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ModelProblem } from '../../../../src/workflow/engine/model/index.js';
import { compileBpmn } from '../../../../src/workflow/engine/model/index.js';
import { conformanceSuite } from '../../../helpers/conformance.js';

/** Models of the MIWG reference suite that compile today; this only goes up. */
const MIWG_COMPILED_FLOOR = 7;

const { directory: MIWG_DIR, skip } = conformanceSuite('bpmn-miwg');

void test(
  'bpmn-miwg reference models compile or are rejected with problems, never crash',
  { skip },
  async () => {
    const files = readdirSync(MIWG_DIR)
      .filter((name) => name.endsWith('.bpmn'))
      .sort();
    assert.ok(files.length > 0, `no .bpmn files in ${MIWG_DIR}`);
    let compiled = 0;
    const rejected: [string, ModelProblem[]][] = [];
    const crashed: [string, unknown][] = [];
    for (const file of files) {
      const xml = readFileSync(join(MIWG_DIR, file), 'utf8');
      try {
        const result = await compileBpmn(xml);
        if (result.ok) {
          compiled++;
          assert.ok(result.processes.length > 0, `${file} compiled to no process`);
          assert.deepEqual(JSON.parse(JSON.stringify(result.processes)), result.processes);
        } else {
          assert.ok(result.problems.length > 0, `${file} rejected without problems`);
          rejected.push([file, result.problems]);
        }
      } catch (error) {
        crashed.push([file, error]);
      }
    }
    console.log(
      `bpmn-miwg: ${compiled} compiled, ${rejected.length} rejected, ${crashed.length} crashed of ${files.length}`,
    );
    for (const [file, problems] of rejected) {
      const first = problems.slice(0, 3).map((p) => p.message);
      console.log(`  rejected ${file} (${problems.length} problems): ${first.join(' | ')}`);
    }
    for (const [file, error] of crashed) console.log(`  CRASHED ${file}:`, error);
    assert.equal(crashed.length, 0);
    assert.ok(compiled >= MIWG_COMPILED_FLOOR, `compiled ${compiled}, floor ${MIWG_COMPILED_FLOOR}`);
  },
);

void test(
  'C.6.0 compensation (handlers, boundary and throw events) compiles; what is still rejected names its element',
  { skip },
  async () => {
    const xml = readFileSync(join(MIWG_DIR, 'C.6.0.bpmn'), 'utf8');
    const result = await compileBpmn(xml);
    assert.ok(!result.ok, 'C.6.0 has tasks without implementation, still rejected');
    assert.deepEqual(
      result.problems.filter((p) => /compensat/i.test(p.message)),
      [],
      'no problem is about compensation',
    );
    for (const problem of result.problems)
      assert.ok(problem.elementId !== null && problem.message.includes(problem.elementId));
  },
);
