import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { compileJuel, evaluateJuel } from '../../../src/lib/juel/index.js';
import { contextWith, evaluationError } from './helpers.js';

/** [text, the 0-based position reported, a pattern the message matches]. */
const COMPILE_ERRORS: readonly (readonly [string, number, RegExp])[] = [
  ['${', 2, /Unexpected end of text: expected a value/],
  ['${}', 0, /Empty expression/],
  ['${a', 3, /Missing '}' to close the expression opened at position 0/],
  ['x ${a b}', 6, /Unexpected 'b': expected '}'/],
  ['${(1 + 2}', 8, /expected '\)' to close the '\(' at position 2/],
  ['${a[1}', 5, /expected '\]' to close the '\[' at position 3/],
  ['${a ? b}', 7, /expected ':' in the conditional opened at position 4/],
  ['${1 +}', 5, /Unexpected '}': expected a value/],
  ["${'open}", 2, /Unterminated string literal/],
  ["${'a\\nb'}", 4, /Invalid escape in a string literal/],
  ['${1a}', 2, /Malformed number '1a'/],
  ['${99999999999999999999}', 2, /beyond the Long range/],
  ['${a = 1}', 4, /'=' is not part of the expression language Camunda 7 supports/],
  ['${a += 1}', 4, /'\+=' is not part/],
  ['${x -> x}', 4, /'->' is not part/],
  ['${{1, 2}}', 2, /'\{' is not part/],
  ['${a; b}', 3, /';' is not part/],
  ['${a instanceof b}', 4, /Unexpected 'instanceof'/],
  ['${instanceof}', 2, /'instanceof' is reserved/],
  ['${and}', 2, /Unexpected 'and': expected a value/],
  ['${a.}', 4, /expected a property or method name after '.'/],
  ['${s.contains(1,}', 15, /Unexpected '}': expected a value/],
  ['${a @ b}', 4, /Unexpected character '@'/],
  ['${a} #{b}', 5, /cannot mix \$\{…\} and #\{…\}/],
  // refused methods and functions
  ['${x.getClass()}', 4, /Method 'getClass' is not allowed/],
  ["${x.getClass().forName('java.lang.Runtime')}", 4, /Method 'getClass' is not allowed/],
  ["${''.getClass().forName('java.lang.Runtime').getRuntime().exec('rm')}", 5, /'getClass' is not allowed/],
  ['${execution.getProcessEngineServices()}', 12, /Method 'getProcessEngineServices' is not allowed/],
  ['${execution.getProcessEngine()}', 12, /not allowed/],
  ['${bean.doSomething(execution)}', 7, /Method 'doSomething' is not allowed/],
  ['${a.wait()}', 4, /'wait' is not allowed/],
  ["${x['getClass']()}", 4, /Method 'getClass' is not allowed/],
  ["${x[name]('a')}", 4, /must be named by a string literal/],
  ['${unknownFunction()}', 2, /Unknown function 'unknownFunction'/],
  ['${fn:length(x)}', 2, /Unknown function 'fn:length'/],
  ['${now(1)}', 2, /Function now\(\) takes no arguments/],
];

describe('JUEL compile errors', () => {
  for (const [text, position, message] of COMPILE_ERRORS) {
    test(`${text} does not compile (position ${position})`, () => {
      const result = compileJuel(text);
      assert.ok(!result.ok);
      assert.match(result.message, message);
      assert.equal(result.position, position);
    });
  }

  test('a text over the size limit is refused', () => {
    const result = compileJuel(`\${${'a || '.repeat(5000)}a}`);
    assert.ok(!result.ok);
    assert.match(result.message, /longer than 20000 characters/);
    assert.ok(!compileJuel('${a}', { maxTextLength: 3 }).ok);
  });

  test('nesting deeper than the limit is refused: parentheses, unary operators and operator chains', () => {
    for (const text of [
      `\${${'('.repeat(150)}1${')'.repeat(150)}}`,
      `\${${'!'.repeat(150)}a}`,
      `\${${'1 + '.repeat(150)}1}`,
    ]) {
      const result = compileJuel(text);
      assert.ok(!result.ok, text.slice(0, 20));
      assert.match(result.message, /nested deeper than 100 levels/);
    }
    assert.ok(compileJuel(`\${${'('.repeat(40)}1${')'.repeat(40)}}`).ok);
  });

  test('compileJuel never throws, whatever the text', () => {
    for (const text of [
      '${',
      '${"',
      "${'\\",
      '${[',
      '${a[',
      '${a(',
      '#{',
      '${)}',
      '${]}',
      '${?:}',
      '\\${',
      '${\u0000}',
    ]) {
      const result = compileJuel(text);
      assert.equal(typeof result.ok, 'boolean');
    }
  });
});

const context = contextWith({
  s: 'abc',
  n: 5,
  list: [1],
  map: { a: 1 },
  when: new Date(0),
  nothing: null,
  flag: true,
});

/** [text, a pattern of the evaluation error]. */
const EVALUATION_ERRORS: readonly (readonly [string, RegExp])[] = [
  [
    '${missing}',
    /Unknown property used in expression: \$\{missing\}\. Cause: Cannot resolve identifier 'missing'/,
  ],
  ['${n > 1 && missing}', /Cannot resolve identifier 'missing'/],
  ["${'abc' * 2}", /Cannot coerce 'abc' \(String\) to Long/],
  ["${'1.5x' * 2}", /Cannot coerce '1.5x' \(String\) to Double/],
  ['${1 % 0}', /Division by zero/],
  ['${1 mod 0}', /Division by zero/],
  ['${flag + 1}', /Cannot coerce true \(Boolean\) to Long/],
  ['${-flag}', /Cannot negate true \(Boolean\)/],
  ['${list + 1}', /Cannot coerce a List to Long/],
  ["${'abc' == 1}", /Cannot coerce 'abc' \(String\) to Long/],
  ['${n == flag}', /Cannot coerce true \(Boolean\) to Long/],
  ['${not n}', /Cannot coerce 5 \(Long\) to Boolean/],
  ['${n ? 1 : 2}', /Cannot coerce 5 \(Long\) to Boolean/],
  ['${n && flag}', /Cannot coerce 5 \(Long\) to Boolean/],
  ['${when < n}', /Cannot coerce a Date to Long/],
  ['${map < list}', /Cannot compare a Map with a List/],
  ["${list['x']}", /Cannot use 'x' \(String\) as a List index/],
  ['${s.bytes}', /Property 'bytes' not found on type String/],
  ['${n.class}', /Property 'class' not found on type Long/],
  ['${s.size()}', /Method size\(\) not found on type String/],
];

describe('JUEL evaluation errors', () => {
  for (const [text, message] of EVALUATION_ERRORS) {
    test(`${text} fails`, () => {
      assert.match(evaluationError(text, context), message);
    });
  }

  test('an evaluation error names the position of the failing operation', () => {
    assert.match(evaluationError("${1 + 'abc' * 2}", context), /at position 12 of \$\{1 \+ 'abc' \* 2\}/);
  });

  test('a string built past the limit is refused, not built', () => {
    const compiled = compileJuel('${s.concat(s).concat(s)}', { maxStringLength: 8 });
    assert.ok(compiled.ok);
    const result = evaluateJuel(compiled.expression, context);
    assert.ok(!result.ok);
    assert.match(result.message, /longer than 8 characters/);
    const huge = contextWith({ big: 'x'.repeat(100_000) });
    assert.match(evaluationError("${big.replace('x', big)}", huge), /longer than 1000000 characters/);
    assert.match(evaluationError("${big.replaceAll('x', big)}", huge), /longer than 1000000 characters/);
    const composite = compileJuel('${big}${big}', { maxStringLength: 150_000 });
    assert.ok(composite.ok);
    assert.ok(!evaluateJuel(composite.expression, huge).ok);
  });

  test('a variable holding a non-JSON value is an error result', () => {
    assert.match(evaluationError('${f}', contextWith({ f: () => 1 })), /not a JSON value/);
  });

  test('a clock that gives no valid date is an error result', () => {
    assert.match(
      evaluationError('${now()}', contextWith({}, { clock: () => new Date(Number.NaN) })),
      /clock gave no valid date/,
    );
  });
});

describe('JUEL never throws', () => {
  const pieces = [
    '${',
    '#{',
    '}',
    '\\',
    "'",
    '"',
    '(',
    ')',
    '[',
    ']',
    '.',
    ',',
    '?',
    ':',
    ' ',
    'a',
    'map',
    'list',
    's',
    'n',
    'nothing',
    'size()',
    'contains(',
    'get(',
    '1',
    '2.5',
    '-',
    '+',
    '*',
    '/',
    '%',
    '==',
    '<',
    '&&',
    '||',
    '!',
    'empty ',
    ' and ',
    ' or ',
    'not ',
    'div',
    'now()',
    'dateTime()',
    '.plusDays(',
    'execution',
    '.getVariable(',
    'true',
    'null',
    'é',
    '\u0000',
  ];

  test('compileJuel and evaluateJuel answer a result for any text built from EL pieces', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 30 }), (chosen) => {
        const compiled = compileJuel(chosen.join(''));
        if (!compiled.ok) {
          assert.equal(typeof compiled.message, 'string');
          return;
        }
        const result = evaluateJuel(
          compiled.expression,
          contextWith(
            { a: 1, map: { a: [1] }, list: ['x'], s: 'abc', n: 2.5, nothing: null },
            { execution: { id: 'e' } },
          ),
        );
        assert.equal(typeof result.ok, 'boolean');
      }),
      { numRuns: 3000 },
    );
  });
});
