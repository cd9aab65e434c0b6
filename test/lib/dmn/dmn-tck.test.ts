import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  compileDmn,
  DmnValidationError,
  evaluateDecision,
  evaluateDecisionService,
  type CompiledDmn,
} from '../../../src/lib/dmn/index.js';
import { parseXml } from './tck-xml.js';
import { readCases, sameValue, show, type TckCase } from './tck-values.js';
import { conformanceSuite } from '../../helpers/conformance.js';

// Floors count test cases (a case passes when every one of its result nodes does); they only go up.
const LEVEL2_FLOOR = 116;
const LEVEL3_FLOOR = 1162;

const { directory: KIT, skip: kitMissing } = conformanceSuite('dmn-tck');

type Outcome = 'SUCCESS' | 'FAILURE' | 'ERROR';

interface Row {
  folder: string;
  testCase: string;
  result: Outcome;
  notes: string;
}

function runCase(compiled: CompiledDmn, tc: TckCase): { result: Outcome; notes: string } {
  const notes: string[] = [];
  let outcome: Outcome = 'SUCCESS';
  const worse = (o: Outcome): void => {
    if (outcome === 'SUCCESS' || (outcome === 'FAILURE' && o === 'ERROR')) outcome = o;
  };
  let serviceResult: Record<string, unknown> | null = null;
  for (const node of tc.results) {
    let actual: unknown;
    try {
      if (tc.type === 'decisionService') {
        serviceResult ??= evaluateDecisionService(compiled, tc.invocableName ?? node.name, tc.inputs, {
          strict: false,
        }).result;
        actual = serviceResult[node.name] ?? null;
      } else {
        actual = evaluateDecision(compiled, node.name, tc.inputs, { strict: false }).result;
      }
    } catch (err) {
      if (node.errorResult) continue;
      worse('ERROR');
      notes.push(`${node.name}: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    if (!sameValue(actual, node.expected)) {
      worse('FAILURE');
      notes.push(`${node.name}: expected ${show(node.expected)} got ${show(actual)}`);
    }
  }
  return { result: outcome, notes: notes.join(' | ') };
}

function runLevel(level: string): Row[] {
  const rows: Row[] = [];
  const base = join(KIT, level);
  const folders = readdirSync(base, { withFileTypes: true }).filter((d) => d.isDirectory());
  for (const folder of folders.map((d) => d.name).sort()) {
    const dir = join(base, folder);
    for (const file of readdirSync(dir).filter((f) => /-test-\d+\.xml$/.test(f))) {
      const { modelName, cases } = readCases(parseXml(readFileSync(join(dir, file), 'utf8')));
      let compiled: CompiledDmn | null = null;
      let compileError = '';
      try {
        compiled = compileDmn(readFileSync(join(dir, modelName ?? `${folder}.dmn`), 'utf8'));
      } catch (err) {
        compileError =
          err instanceof DmnValidationError
            ? `model not evaluable: ${err.problems[0]?.message ?? ''}`
            : `model not readable: ${err instanceof Error ? err.message : String(err)}`;
      }
      for (const tc of cases) {
        if (compiled === null) {
          rows.push({ folder, testCase: tc.id, result: 'ERROR', notes: compileError });
          continue;
        }
        const { result, notes } = runCase(compiled, tc);
        rows.push({ folder, testCase: tc.id, result, notes });
      }
    }
  }
  return rows;
}

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
      const rows = runLevel(level);
      all.push(...rows);
      const passed = rows.filter((r) => r.result === 'SUCCESS').length;
      const failed = rows.filter((r) => r.result === 'FAILURE').length;
      const errored = rows.filter((r) => r.result === 'ERROR').length;
      counts[label] = passed;
      console.log(
        `dmn tck level ${label}: ${passed} passed, ${failed} failed, ${errored} errored of ${rows.length} test cases`,
      );
    }
    const csv = all.map((r) => [r.folder, r.testCase, r.result, r.notes].map(csvField).join(',')).join('\n');
    const out = join(tmpdir(), 'tck_results.csv');
    writeFileSync(out, `${csv}\n`);
    console.log(`dmn tck results written to ${out}`);
    assert.ok((counts['2'] ?? 0) >= LEVEL2_FLOOR, `level 2 passed ${counts['2']} < floor ${LEVEL2_FLOOR}`);
    assert.ok((counts['3'] ?? 0) >= LEVEL3_FLOOR, `level 3 passed ${counts['3']} < floor ${LEVEL3_FLOOR}`);
  },
);
