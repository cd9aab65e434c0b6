import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileDmn, DmnEvaluationError, evaluateDecision } from '../../../src/lib/dmn/index.js';
import { tableModel, type TableSpec } from './dmn-fixtures.js';

function decide(spec: TableSpec, vars: Record<string, unknown>): ReturnType<typeof evaluateDecision> {
  return evaluateDecision(compileDmn(tableModel(spec)), 'Decide', vars);
}

const ages: [string[], string[]][] = [
  [['< 18'], ['"minor"']],
  [['[18..65)'], ['"adult"']],
  [['>= 65'], ['"senior"']],
  [['>= 18'], ['"of age"']],
];

describe('decision table hit policies', () => {
  test('UNIQUE returns the single match and names the rule matched', () => {
    const spec: TableSpec = { inputs: ['age'], outputs: [{ name: 'r' }], rules: ages.slice(0, 3) };
    const { result, matchedRules } = decide(spec, { age: 30 });
    assert.equal(result, 'adult');
    assert.deepEqual(matchedRules, [
      { decisionId: 'd', decisionName: 'Decide', ruleId: 'table_r1', ruleIndex: 1 },
    ]);
  });

  test('UNIQUE with several matches throws an error naming the decision and the rules', () => {
    const spec: TableSpec = { hitPolicy: 'UNIQUE', inputs: ['age'], outputs: [{ name: 'r' }], rules: ages };
    assert.throws(
      () => decide(spec, { age: 30 }),
      (err: unknown) =>
        err instanceof DmnEvaluationError &&
        err.decisionId === 'd' &&
        err.ruleId === 'table_r1' &&
        /decision 'Decide', rule 2 \(table_r1\): hit policy UNIQUE but 2 rules matched \(rules 2, 4\)/.test(
          err.message,
        ),
    );
  });

  test('no match gives null, or the default output entry', () => {
    const spec: TableSpec = { inputs: ['age'], outputs: [{ name: 'r' }], rules: ages.slice(0, 1) };
    assert.equal(decide(spec, { age: 30 }).result, null);
    const withDefault: TableSpec = { ...spec, outputs: [{ name: 'r', default: '"unknown"' }] };
    assert.equal(decide(withDefault, { age: 30 }).result, 'unknown');
  });

  test('FIRST returns the first match in rule order', () => {
    const spec: TableSpec = { hitPolicy: 'FIRST', inputs: ['age'], outputs: [{ name: 'r' }], rules: ages };
    const { result, matchedRules } = decide(spec, { age: 70 });
    assert.equal(result, 'senior');
    assert.equal(matchedRules.length, 1);
    assert.equal(matchedRules[0]?.ruleIndex, 2);
  });

  test('PRIORITY picks the match whose output comes first in the output values', () => {
    const spec: TableSpec = {
      hitPolicy: 'PRIORITY',
      inputs: ['age'],
      outputs: [{ name: 'r', values: '"of age", "senior", "adult", "minor"' }],
      rules: ages,
    };
    assert.equal(decide(spec, { age: 70 }).result, 'of age');
    assert.equal(decide(spec, { age: 10 }).result, 'minor');
  });

  test('OUTPUT ORDER lists every match ordered by output values', () => {
    const spec: TableSpec = {
      hitPolicy: 'OUTPUT ORDER',
      inputs: ['age'],
      outputs: [{ name: 'r', values: '"senior", "of age", "adult", "minor"' }],
      rules: ages,
    };
    assert.deepEqual(decide(spec, { age: 70 }).result, ['senior', 'of age']);
  });

  test('RULE ORDER lists every match in rule order', () => {
    const spec: TableSpec = {
      hitPolicy: 'RULE ORDER',
      inputs: ['age'],
      outputs: [{ name: 'r', values: '"senior", "of age", "adult", "minor"' }],
      rules: ages,
    };
    const { result, matchedRules } = decide(spec, { age: 70 });
    assert.deepEqual(result, ['senior', 'of age']);
    assert.deepEqual(
      matchedRules.map((r) => r.ruleIndex),
      [2, 3],
    );
  });

  test('ANY accepts agreeing matches and rejects disagreeing ones', () => {
    const spec: TableSpec = {
      hitPolicy: 'ANY',
      inputs: ['age'],
      outputs: [{ name: 'r' }],
      rules: [
        [['>= 18'], ['"yes"']],
        [['>= 21'], ['"yes"']],
        [['> 100'], ['"no"']],
      ],
    };
    assert.equal(decide(spec, { age: 30 }).result, 'yes');
    assert.throws(
      () => decide(spec, { age: 101 }),
      (err: unknown) =>
        err instanceof DmnEvaluationError && err.ruleIndex === 2 && /hit policy ANY/.test(err.message),
    );
  });

  test('COLLECT lists the outputs, or aggregates them with SUM, MIN, MAX and COUNT', () => {
    const rules: [string[], string[]][] = [
      [['> 1'], ['100']],
      [['> 2'], ['200']],
      [['> 3'], ['300']],
    ];
    const base: TableSpec = { hitPolicy: 'COLLECT', inputs: ['years'], outputs: [{ name: 'salary' }], rules };
    assert.deepEqual(decide(base, { years: 3 }).result, [100, 200]);
    assert.deepEqual(decide(base, { years: 0 }).result, []);
    assert.equal(decide({ ...base, aggregation: 'SUM' }, { years: 4 }).result, 600);
    assert.equal(decide({ ...base, aggregation: 'MIN' }, { years: 4 }).result, 100);
    assert.equal(decide({ ...base, aggregation: 'MAX' }, { years: 4 }).result, 300);
    assert.equal(decide({ ...base, aggregation: 'COUNT' }, { years: 4 }).result, 3);
    assert.equal(decide({ ...base, aggregation: 'COUNT' }, { years: 0 }).result, 0);
    assert.equal(decide({ ...base, aggregation: 'SUM' }, { years: 0 }).result, null);
  });

  test('several outputs give a context per match', () => {
    const spec: TableSpec = {
      hitPolicy: 'RULE ORDER',
      inputs: ['kind', 'amount'],
      outputs: [{ name: 'route' }, { name: 'limit' }],
      rules: [
        [
          ['"gold"', '-'],
          ['"fast"', 'amount * 2'],
        ],
        [
          ['not("gold")', '< 100'],
          ['"normal"', '100'],
        ],
        [
          ['-', '>= 100'],
          ['"review"', 'null'],
        ],
      ],
    };
    assert.deepEqual(decide(spec, { kind: 'gold', amount: 150 }).result, [
      { route: 'fast', limit: 300 },
      { route: 'review', limit: null },
    ]);
    assert.deepEqual(decide(spec, { kind: 'silver', amount: 50 }).result, [{ route: 'normal', limit: 100 }]);
  });

  test('unary tests: lists, ranges, not(), comparisons and expressions with ?', () => {
    const spec: TableSpec = {
      hitPolicy: 'FIRST',
      inputs: ['code', 'n'],
      outputs: [{ name: 'r' }],
      rules: [
        [['"a", "b"', ']0..10['], ['"ab small"']],
        [['not("a", "b")', '[10..20]'], ['"other mid"']],
        [['-', '? > 100'], ['"huge"']],
        [['-', 'odd(?)'], ['"odd"']],
      ],
    };
    assert.equal(decide(spec, { code: 'b', n: 5 }).result, 'ab small');
    assert.equal(decide(spec, { code: 'b', n: 10 }).result, null);
    assert.equal(decide(spec, { code: 'c', n: 10 }).result, 'other mid');
    assert.equal(decide(spec, { code: 'a', n: 101 }).result, 'huge');
    assert.equal(decide(spec, { code: 'a', n: 33 }).result, 'odd');
  });

  test('an input outside its input values is an error naming the input', () => {
    const spec: TableSpec = {
      inputs: ['risk'],
      inputValues: ['"low", "high"'],
      outputs: [{ name: 'r' }],
      rules: [[['"low"'], ['1']]],
    };
    assert.equal(decide(spec, { risk: 'low' }).result, 1);
    assert.throws(
      () => decide(spec, { risk: 'medium' }),
      /decision 'Decide', element table_in0: input 'risk'/,
    );
    const relaxed = evaluateDecision(
      compileDmn(tableModel(spec)),
      'd',
      { risk: 'medium' },
      { strict: false },
    );
    assert.equal(relaxed.result, null);
  });

  test('a FEEL runtime failure in an output entry names the decision and the rule', () => {
    const spec: TableSpec = { inputs: ['x'], outputs: [{ name: 'r' }], rules: [[['-'], ['x + "text"']]] };
    assert.throws(
      () => decide(spec, { x: 1 }),
      (err: unknown) =>
        err instanceof DmnEvaluationError &&
        err.ruleIndex === 0 &&
        /decision 'Decide', rule 1 \(table_r0\): output entry 'x \+ "text"' failed/.test(err.message),
    );
  });
});
