import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileDmn, evaluateDecision } from '../../../src/lib/dmn/index.js';
import { definitions, inputData, literalDecision } from './dmn-fixtures.js';

const lit = (text: string): string =>
  `<literalExpression><text>${text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</text></literalExpression>`;
const decision = (name: string, body: string): string =>
  `<decision id="${name}" name="${name}"><informationRequirement><requiredInput href="#i_n"/></informationRequirement>${body}</decision>`;

// DMN 1.5 namespace: the boxed expressions of 8.3 (conditional, filter, iterators) are 1.4/1.5 elements.
const model = definitions(`
  ${inputData('i_n', 'n', 'number')}
  ${decision('cond', `<conditional><if>${lit('n > 0')}</if><then>${lit('"positive"')}</then><else>${lit('"not positive"')}</else></conditional>`)}
  ${decision('filt', `<filter><in>${lit('[{a: 1}, {a: 5}, {a: 9}]')}</in><match>${lit('a > n')}</match></filter>`)}
  ${decision('filtItem', `<filter><in>${lit('[1, 5, 9]')}</in><match>${lit('item > n')}</match></filter>`)}
  ${decision('forEach', `<for iteratorVariable="x"><in>${lit('[1, 2, 3]')}</in><return>${lit('x * n')}</return></for>`)}
  ${decision('forPartial', `<for iteratorVariable="x"><in>${lit('[1..4]')}</in><return>${lit('if x = 1 then 1 else x * partial[-1]')}</return></for>`)}
  ${decision('forSingle', `<for iteratorVariable="x"><in>${lit('n')}</in><return>${lit('x + 1')}</return></for>`)}
  ${decision('someOf', `<some iteratorVariable="x"><in>${lit('[1, 2, 3]')}</in><satisfies>${lit('x > n')}</satisfies></some>`)}
  ${decision('everyOf', `<every iteratorVariable="x"><in>${lit('[1, 2, 3]')}</in><satisfies>${lit('x > n')}</satisfies></every>`)}
  ${decision('someNotBoolean', `<some iteratorVariable="x"><in>${lit('[1, 2]')}</in><satisfies>${lit('if x = 2 then true else "no"')}</satisfies></some>`)}
  ${decision('someEmpty', `<some iteratorVariable="x"><in>${lit('[]')}</in><satisfies>${lit('true')}</satisfies></some>`)}
  ${decision('everyEmpty', `<every iteratorVariable="x"><in>${lit('[]')}</in><satisfies>${lit('false')}</satisfies></every>`)}
`).replace('https://www.omg.org/spec/DMN/20191111/MODEL/', 'https://www.omg.org/spec/DMN/20230324/MODEL/');

describe('DMN 1.4/1.5 boxed conditional, filter and iterators', () => {
  const compiled = compileDmn(model);
  const run = (name: string, n: number | null): unknown =>
    evaluateDecision(compiled, name, { n }, { strict: false }).result;

  test('conditional: the then part when the if part is true, else the else part (null too)', () => {
    assert.equal(run('cond', 3), 'positive');
    assert.equal(run('cond', -1), 'not positive');
    assert.equal(run('cond', null), 'not positive');
  });

  test('filter: the items whose match is true; a context item puts its entries in scope', () => {
    assert.deepEqual(run('filt', 4), [{ a: 5 }, { a: 9 }]);
    assert.deepEqual(run('filtItem', 4), [5, 9]);
  });

  test('for: each item through the return part, with partial; a single value is a list of it', () => {
    assert.deepEqual(run('forEach', 2), [2, 4, 6]);
    assert.deepEqual(run('forPartial', 0), [1, 2, 6, 24]);
    assert.deepEqual(run('forSingle', 2), [3]);
  });

  test('some and every: a satisfies that is not boolean makes the result null', () => {
    assert.equal(run('someOf', 2), true);
    assert.equal(run('someOf', 3), false);
    assert.equal(run('everyOf', 0), true);
    assert.equal(run('everyOf', 1), false);
    assert.equal(run('someNotBoolean', 0), null);
    assert.equal(run('someEmpty', 0), false);
    assert.equal(run('everyEmpty', 0), true);
  });
});

describe('instance of an item definition', () => {
  const types = `
    <itemDefinition name="tSmall"><typeRef>number</typeRef><allowedValues><text>[0..9]</text></allowedValues></itemDefinition>
    <itemDefinition name="tNumbers" isCollection="true"><typeRef>number</typeRef></itemDefinition>
    <itemDefinition name="tPerson"><itemComponent name="name"><typeRef>string</typeRef></itemComponent><itemComponent name="age"><typeRef>tSmall</typeRef></itemComponent></itemDefinition>
    <itemDefinition name="tFn"><functionItem/></itemDefinition>`;
  const cases: [string, boolean][] = [
    ['5 instance of tSmall', true],
    // Allowed values constrain a value, they are not its type (DMN 1.5 10.3.2.9).
    ['50 instance of tSmall', true],
    ['"5" instance of tSmall', false],
    ['null instance of tSmall', false],
    ['[1, 2] instance of tNumbers', true],
    ['[] instance of tNumbers', true],
    ['[1, "2"] instance of tNumbers', false],
    ['1 instance of tNumbers', false],
    ['{name: "Ann", age: 3} instance of tPerson', true],
    ['{name: "Ann", age: 3, extra: true} instance of tPerson', true],
    ['{name: "Ann"} instance of tPerson', false],
    ['{name: 1, age: 3} instance of tPerson', false],
    ['{name: null, age: 3} instance of tPerson', true],
    ['[{name: "Ann", age: 3}] instance of list<tPerson>', true],
    ['(function(a) a) instance of tFn', true],
  ];
  const model = definitions(
    `${types}${cases.map(([text], i) => literalDecision(`d${i}`, `d${i}`, text)).join('')}`,
  );
  const compiled = compileDmn(model);
  for (const [text, expected] of cases) {
    test(`${text} is ${expected}`, () => {
      const i = cases.findIndex(([t]) => t === text);
      assert.equal(evaluateDecision(compiled, `d${i}`, {}, { strict: false }).result, expected);
    });
  }
});
