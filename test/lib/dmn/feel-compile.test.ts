import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluate } from 'feelin';
import { compileUnaryTests, unaryTestSlow } from '../../../src/lib/dmn/unary-tests.js';
import { compileExpression } from '../../../src/lib/dmn/feel-expression.js';
import { deepEqual } from '../../../src/lib/dmn/hit-policy.js';

const FAST_TESTS = [
  '-',
  '5',
  '-5',
  '< 5',
  '<=5',
  '> 5',
  '>= 5',
  '< -2.5',
  '[1..5]',
  '(1..5)',
  ']1..5[',
  '[1..5)',
  '"a","b"',
  'null',
  'not(5)',
  'not(null)',
  '> 3, < 1',
  'true',
  'false',
  'not("a", "b")',
  '["a".."c"]',
  '< "b"',
];
const NUMBERS = [-3, 0, 1, 4.5, 5, 7];
const STRINGS = ['a', 'b', 'c', ''];

describe('compiled unary tests', () => {
  test('the simple forms take the fast path', () => {
    for (const text of FAST_TESTS) assert.equal(compileUnaryTests(text).fast, true, text);
    for (const text of ['? > 5', 'odd(?)', 'x', '< x', 'date("2020-01-01")']) {
      assert.equal(compileUnaryTests(text).fast, false, text);
    }
  });

  test('the fast path agrees with feelin for inputs of the tested type and for null', () => {
    for (const text of FAST_TESTS) {
      const compiled = compileUnaryTests(text);
      const typed = /"/.test(text) ? STRINGS : /true|false/.test(text) ? [true, false] : NUMBERS;
      const inputs = /not\(/.test(text) ? typed : [...typed, null];
      for (const input of inputs) {
        const expected = unaryTestSlow(text, input, {}).value === true;
        assert.equal(compiled.test(input, {}), expected, `${text} with ${String(input)}`);
      }
    }
  });

  test('values of another type never match an ordering test (FEEL: null), unlike feelin', () => {
    for (const text of ['< 5', '<= 5', '[1..5]', '> "a"']) {
      const other = text.includes('"') ? 3 : 'a';
      assert.equal(compileUnaryTests(text).test(other, {}), false, text);
      assert.equal(compileUnaryTests(text).test(true, {}), false, text);
    }
    assert.equal(compileUnaryTests('not(< 5)').test('a', {}), false);
    assert.equal(compileUnaryTests('not(< 5)').test(null, {}), false);
  });

  test('other forms and other inputs go to feelin', () => {
    assert.equal(compileUnaryTests('? > 5').test(7, {}), true);
    assert.equal(compileUnaryTests('< x').test(3, { x: 4 }), true);
    assert.equal(compileUnaryTests('< x').test(5, { x: 4 }), false);
    const day = evaluate('date("2020-01-02")').value;
    assert.equal(compileUnaryTests('> date("2020-01-01")').test(day, {}), true);
  });
});

describe('unary tests that are expressions (DMN 1.5 10.3.2.11)', () => {
  const vars = { flags: { on: true, off: false }, limit: 5, choices: [1, 2] };
  const matches = (text: string, input: unknown): boolean => compileUnaryTests(text).test(input, vars);

  test('an expression without ? is compared with the input, a boolean one too', () => {
    assert.equal(matches('flags.on', true), true);
    assert.equal(matches('flags.on', false), false);
    assert.equal(matches('flags.off', false), true);
    assert.equal(matches('not(flags.on)', false), true);
    assert.equal(matches('not(flags.on)', true), false);
    assert.equal(matches('flags.on', null), false);
    assert.equal(matches('limit', 5), true);
    assert.equal(matches('limit', 6), false);
    assert.equal(matches('choices', 2), true);
    assert.equal(matches('limit > 3', true), true);
    assert.equal(matches('limit > 3', false), false);
  });

  test('an expression that mentions ? is the test itself', () => {
    assert.equal(matches('? > limit', 6), true);
    assert.equal(matches('? > limit', 4), false);
    assert.equal(matches('odd(?)', 3), true);
    assert.equal(matches('< limit, flags.on', true), true);
  });
});

describe('compiled expressions', () => {
  const cases: [string, string[], Record<string, unknown>][] = [
    ['"Hello " + Full Name', ['Full Name'], { 'Full Name': 'Ann' }],
    ['for x in L return x * k', [], { L: [1, 2], k: 3 }],
    [
      'L[age > 5].name',
      [],
      {
        L: [
          { age: 3, name: 'a' },
          { age: 7, name: 'b' },
        ],
        age: 100,
      },
    ],
    ['sum([a, b]) + count(L)', [], { a: 1, b: 2, L: [1] }],
    ['{a: 1, b: a + x}.b', [], { x: 1, a: 50 }],
    ['if x > 1 then "big" else "small"', [], { x: 3 }],
    ['Loan-to-value ratio * 2', ['Loan-to-value ratio'], { 'Loan-to-value ratio': 4 }],
    ['missing + 1', [], {}],
    ['string(date("2020-01-01") + duration("P1D"))', [], {}],
    ['some v in L satisfies v > 1', [], { L: [1, 2] }],
    ['x', [], { x: null }],
  ];

  test('the compiled form gives what feelin gives for the same text and variables', () => {
    for (const [text, scope, vars] of cases) {
      const compiled = compileExpression(text, scope);
      assert.equal(compiled.precompiled, true, text);
      const expected = evaluate(text, vars).value ?? null;
      assert.ok(deepEqual(compiled.evaluate(vars).value, expected), text);
      // evaluated twice, to show no state leaks between calls
      assert.ok(deepEqual(compiled.evaluate(vars).value, expected), text);
    }
  });

  test('failures come back as warnings with a null value, and do not accumulate', () => {
    const compiled = compileExpression('x + "a"', []);
    for (let i = 0; i < 3; i++) {
      const { value, warnings } = compiled.evaluate({ x: 1 });
      assert.equal(value, null);
      assert.equal(warnings.length, 1);
    }
    assert.deepEqual(compiled.evaluate({ x: 'b' }), { value: 'ba', warnings: [] });
  });
});
