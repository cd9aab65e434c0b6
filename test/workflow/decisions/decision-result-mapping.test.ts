import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DecisionResultMappingError,
  mapDecisionResult,
  type DecisionResultMapping,
} from '../../../src/workflow/decisions/decision-result-mapping.js';
import { DecisionBindingError, pinnedVersion } from '../../../src/workflow/decisions/decision-work.js';
import { compileDmn, evaluateDecision } from '../../../src/lib/dmn/index.js';
import type { DecisionReference } from '../../../src/workflow/engine/model/index.js';
import {
  definitions,
  literalDecision,
  tableModel,
  tableXml,
  type TableSpec,
} from '../../lib/dmn/dmn-fixtures.js';

/** Rules over `n`: the first two match n >= 1, the third n >= 2. */
const rules = (outputs: number): [string[], string[]][] =>
  [
    ['>= 1', '"a"', '1'],
    ['>= 1', '"b"', '2'],
    ['>= 2', '"c"', '3'],
  ].map(([test, ...values]) => [[test as string], values.slice(0, outputs) as string[]]);

const oneOutput = (hitPolicy: string, aggregation?: string): TableSpec => ({
  hitPolicy,
  ...(aggregation ? { aggregation } : {}),
  inputs: ['n'],
  outputs: [{ name: 'letter' }],
  rules: rules(1),
});
const twoOutputs = (hitPolicy: string): TableSpec => ({
  hitPolicy,
  inputs: ['n'],
  outputs: [{ name: 'letter' }, { name: 'number' }],
  rules: rules(2),
});

function resultList(spec: TableSpec, n: number): Record<string, unknown>[] {
  return evaluateDecision(compileDmn(tableModel(spec)), 'd', { n }).resultList;
}

function mapped(mapping: DecisionResultMapping, spec: TableSpec, n: number): unknown {
  return mapDecisionResult('d', mapping, resultList(spec, n));
}

function mappingError(mapping: DecisionResultMapping, detail: RegExp) {
  return (error: unknown): boolean =>
    error instanceof DecisionResultMappingError &&
    error.decisionKey === 'd' &&
    error.mapping === mapping &&
    error.message.startsWith(`decision 'd': mapDecisionResult '${mapping}' `) &&
    detail.test(error.message);
}

describe('the decision result of the DMN engine (resultList)', () => {
  test('a decision table gives one entry per rule the hit policy kept, without changing result', () => {
    const rows = evaluateDecision(compileDmn(tableModel(twoOutputs('RULE ORDER'))), 'd', { n: 2 });
    assert.deepEqual(rows.result, [
      { letter: 'a', number: 1 },
      { letter: 'b', number: 2 },
      { letter: 'c', number: 3 },
    ]);
    assert.deepEqual(rows.resultList, rows.result);
    assert.deepEqual(resultList(oneOutput('COLLECT'), 1), [{ letter: 'a' }, { letter: 'b' }]);
    assert.deepEqual(resultList(oneOutput('COLLECT'), 0), []);
    assert.deepEqual(resultList(oneOutput('FIRST'), 2), [{ letter: 'a' }]);
    assert.deepEqual(resultList(twoOutputs('FIRST'), 0), []);
    const unique: TableSpec = { ...oneOutput('UNIQUE'), rules: rules(1).slice(2) };
    const single = evaluateDecision(compileDmn(tableModel(unique)), 'd', { n: 5 });
    assert.equal(single.result, 'c');
    assert.deepEqual(single.resultList, [{ letter: 'c' }]);
  });

  test('PRIORITY and OUTPUT ORDER keep the entries in the order of their results', () => {
    const priority: TableSpec = {
      ...twoOutputs('PRIORITY'),
      outputs: [{ name: 'letter', values: '"c","b","a"' }, { name: 'number' }],
    };
    assert.deepEqual(resultList(priority, 2), [{ letter: 'c', number: 3 }]);
    const ordered = { ...priority, hitPolicy: 'OUTPUT ORDER' };
    assert.deepEqual(resultList(ordered, 2), [
      { letter: 'c', number: 3 },
      { letter: 'b', number: 2 },
      { letter: 'a', number: 1 },
    ]);
  });

  test('default outputs are one entry when no rule matched', () => {
    const spec: TableSpec = {
      ...twoOutputs('UNIQUE'),
      outputs: [{ name: 'letter', default: '"none"' }, { name: 'number' }],
      rules: [],
    };
    assert.deepEqual(resultList(spec, 1), [{ letter: 'none', number: null }]);
  });

  test('a COLLECT aggregation is one entry named after the output, also without a match', () => {
    const spec = (aggregation: string): TableSpec => ({
      ...oneOutput('COLLECT', aggregation),
      outputs: [{ name: 'points' }],
      rules: rules(3).map(([tests, values]) => [tests, values.slice(1)]),
    });
    assert.deepEqual(resultList(spec('SUM'), 2), [{ points: 6 }]);
    assert.deepEqual(resultList(spec('MIN'), 2), [{ points: 1 }]);
    assert.deepEqual(resultList(spec('MAX'), 2), [{ points: 3 }]);
    assert.deepEqual(resultList(spec('COUNT'), 1), [{ points: 2 }]);
    assert.deepEqual(resultList(spec('COUNT'), 0), [{ points: 0 }]);
    assert.deepEqual(resultList(spec('SUM'), 0), [{ points: null }]);
  });

  test('a literal expression is one entry named after its variable, or else the decision', () => {
    const named = compileDmn(
      definitions(
        '<decision id="season" name="Season"><variable name="season"/><literalExpression><text>if month &lt; 6 then "spring" else "autumn"</text></literalExpression></decision>',
      ),
    );
    assert.deepEqual(evaluateDecision(named, 'season', { month: 3 }), {
      result: 'spring',
      resultList: [{ season: 'spring' }],
      matchedRules: [],
    });
    const plain = compileDmn(definitions(literalDecision('total', 'Total', 'a + b')));
    assert.deepEqual(evaluateDecision(plain, 'total', { a: 1, b: 2 }).resultList, [{ Total: 3 }]);
    const nothing = compileDmn(definitions(literalDecision('none', 'None', 'null')));
    assert.deepEqual(evaluateDecision(nothing, 'none', {}).resultList, [{ None: null }]);
  });

  test('a decision requiring a table gives its own result, not the table entries', () => {
    const xml = definitions(
      `<decision id="d" name="Decide">${tableXml(oneOutput('COLLECT'))}</decision>` +
        literalDecision('count', 'Count', 'count(Decide)', { decisions: ['d'] }),
    );
    const evaluation = evaluateDecision(compileDmn(xml), 'count', { n: 2 });
    assert.deepEqual(evaluation.resultList, [{ Count: 3 }]);
    assert.equal(evaluation.matchedRules.length, 3);
  });
});

describe('mapDecisionResult (Camunda 7 mappers)', () => {
  test('singleEntry: the value of the only output of at most one rule', () => {
    assert.equal(mapped('singleEntry', oneOutput('FIRST'), 1), 'a');
    assert.equal(mapped('singleEntry', oneOutput('FIRST'), 0), null);
    assert.equal(mapped('singleEntry', oneOutput('COLLECT', 'COUNT'), 2), 3);
    assert.throws(
      () => mapped('singleEntry', oneOutput('COLLECT'), 1),
      mappingError('singleEntry', /needs at most one matched rule, but 2 rules matched/),
    );
    assert.throws(
      () => mapped('singleEntry', twoOutputs('FIRST'), 1),
      mappingError(
        'singleEntry',
        /needs exactly one output, but the result has 2 outputs \('letter', 'number'\)/,
      ),
    );
  });

  test('singleResult: the output map of at most one rule', () => {
    assert.deepEqual(mapped('singleResult', twoOutputs('FIRST'), 1), { letter: 'a', number: 1 });
    assert.deepEqual(mapped('singleResult', oneOutput('FIRST'), 1), { letter: 'a' });
    assert.equal(mapped('singleResult', twoOutputs('FIRST'), 0), null);
    assert.throws(
      () => mapped('singleResult', twoOutputs('RULE ORDER'), 2),
      mappingError('singleResult', /needs at most one matched rule, but 3 rules matched/),
    );
  });

  test('collectEntries: the values of the only output of every rule', () => {
    assert.deepEqual(mapped('collectEntries', oneOutput('COLLECT'), 2), ['a', 'b', 'c']);
    assert.deepEqual(mapped('collectEntries', oneOutput('FIRST'), 1), ['a']);
    assert.deepEqual(mapped('collectEntries', oneOutput('COLLECT'), 0), []);
    assert.deepEqual(mapped('collectEntries', oneOutput('COLLECT', 'SUM'), 0), [null]);
    assert.throws(
      () => mapped('collectEntries', twoOutputs('COLLECT'), 1),
      mappingError('collectEntries', /needs exactly one output, but the result has 2 outputs/),
    );
  });

  test('resultList: the entries as they are', () => {
    assert.deepEqual(mapped('resultList', twoOutputs('COLLECT'), 1), [
      { letter: 'a', number: 1 },
      { letter: 'b', number: 2 },
    ]);
    assert.deepEqual(mapped('resultList', twoOutputs('FIRST'), 1), [{ letter: 'a', number: 1 }]);
    assert.deepEqual(mapped('resultList', twoOutputs('COLLECT'), 0), []);
  });

  test('a literal expression maps like a one-output table with one rule', () => {
    const entries = [{ season: 'spring' }];
    assert.equal(mapDecisionResult('s', 'singleEntry', entries), 'spring');
    assert.deepEqual(mapDecisionResult('s', 'singleResult', entries), { season: 'spring' });
    assert.deepEqual(mapDecisionResult('s', 'collectEntries', entries), ['spring']);
    assert.deepEqual(mapDecisionResult('s', 'resultList', entries), entries);
  });
});

describe('the decision binding of a business rule task', () => {
  const reference = (binding: DecisionReference['binding'], version: string | null): DecisionReference => ({
    decisionId: 'd',
    binding,
    version,
    mapDecisionResult: null,
    resultVariable: null,
  });

  test('latest is the newest version; version pins one', () => {
    assert.equal(pinnedVersion(reference('latest', null)), null);
    assert.equal(pinnedVersion(reference('version', '3')), 3);
    assert.equal(pinnedVersion(reference('version', ' 12 ')), 12);
  });

  test('a version that is not a number of 1 or more is refused', () => {
    for (const version of ['0', '${v}', 'two', '', null]) {
      assert.throws(
        () => pinnedVersion(reference('version', version)),
        (error: unknown) =>
          error instanceof DecisionBindingError &&
          /binding 'version' needs a version number/.test(error.message),
      );
    }
  });

  test('deployment and versionTag are refused with a clear message', () => {
    for (const binding of ['deployment', 'versionTag'] as const) {
      assert.throws(
        () => pinnedVersion(reference(binding, 'v1')),
        (error: unknown) =>
          error instanceof DecisionBindingError &&
          error.message ===
            `decision 'd': binding '${binding}' is not supported (decisions are deployed on their own and have no version tags); use 'latest' or 'version'`,
      );
    }
  });
});
