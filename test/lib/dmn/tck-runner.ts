import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  compileDmn,
  DmnValidationError,
  evaluateDecision,
  evaluateDecisionService,
  type CompiledDmn,
} from '../../../src/lib/dmn/index.js';
import { parseXml } from './tck-xml.js';
import { message, readCases, sameValue, show, type TckCase } from './tck-values.js';

/** How a test case ended, in the TCK's own words. */
export type Outcome = 'SUCCESS' | 'FAILURE' | 'ERROR';

/** One line of the results: a test case (or a whole test file that could not be read). */
export interface Row {
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
      notes.push(`${node.name}: ${message(err)}`);
      continue;
    }
    if (!sameValue(actual, node.expected)) {
      worse('FAILURE');
      notes.push(`${node.name}: expected ${show(node.expected)} got ${show(actual)}`);
    }
  }
  return { result: outcome, notes: notes.join(' | ') };
}

function compile(dir: string, file: string): { compiled: CompiledDmn } | { error: string } {
  try {
    return { compiled: compileDmn(readFileSync(join(dir, file), 'utf8')) };
  } catch (err) {
    return {
      error:
        err instanceof DmnValidationError
          ? `model not evaluable: ${err.problems[0]?.message ?? ''}`
          : `model not readable: ${message(err)}`,
    };
  }
}

/** Runs the `*-test-NN.xml` files of one folder against its model. */
function runFolder(base: string, folder: string): Row[] {
  const rows: Row[] = [];
  const dir = join(base, folder);
  for (const file of readdirSync(dir)
    .filter((f) => /-test-\d+\.xml$/.test(f))
    .sort()) {
    let read: ReturnType<typeof readCases>;
    try {
      read = readCases(parseXml(readFileSync(join(dir, file), 'utf8')));
    } catch (err) {
      rows.push({
        folder,
        testCase: file,
        result: 'FAILURE',
        notes: `test file cannot be read: ${message(err)}`,
      });
      continue;
    }
    const model = compile(dir, read.modelName ?? `${folder}.dmn`);
    for (const tc of read.cases) {
      if ('unreadable' in tc) {
        rows.push({ folder, testCase: tc.id, result: 'FAILURE', notes: tc.unreadable });
      } else if ('error' in model) {
        rows.push({ folder, testCase: tc.id, result: 'ERROR', notes: model.error });
      } else {
        try {
          rows.push({ folder, testCase: tc.id, ...runCase(model.compiled, tc) });
        } catch (err) {
          rows.push({ folder, testCase: tc.id, result: 'ERROR', notes: `runner: ${message(err)}` });
        }
      }
    }
  }
  return rows;
}

/**
 * Runs every folder of a compliance level directory. Whatever goes wrong with one test file or case
 * (unreadable file, values the reader cannot convert, a throwing evaluation) is that file's or case's
 * row, never an exception out of here: one bad case must not hide the results of the others.
 */
export function runLevel(base: string): Row[] {
  const folders = readdirSync(base, { withFileTypes: true }).filter((d) => d.isDirectory());
  return folders
    .map((d) => d.name)
    .sort()
    .flatMap((folder) => runFolder(base, folder));
}
