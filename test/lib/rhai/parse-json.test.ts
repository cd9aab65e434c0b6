import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonValue } from '../../../src/lib/rhai/index.js';
import { evalRhai, isRhaiError } from '../../../src/lib/rhai/index.js';

const value = (src: string): JsonValue => evalRhai(src).value;
const failure = (src: string): { kind: string; parseError: string | undefined } => {
  try {
    evalRhai(src);
  } catch (e) {
    assert.ok(isRhaiError(e));
    return { kind: e.kind, parseError: e.parseError };
  }
  assert.fail(`expected an error: ${src}`);
};

describe('rhai parse_json (book: Object Maps, "Parse from JSON")', () => {
  test('an object becomes a map; integers are INT, other numbers FLOAT, null is ()', () => {
    assert.deepEqual(value('parse_json(`{"a":1, "b":2, "c":3}`)'), { a: 1, b: 2, c: 3 });
    assert.deepEqual(
      value(
        'let m = parse_json(`{"i": 1, "f": 1.0, "e": 1e2, "n": null, "s": "x\\u00e9", "l": [true, {}]}`); [type_of(m.i), type_of(m.f), type_of(m.e), type_of(m.n), m.s, m.l]',
      ),
      ['i64', 'f64', 'f64', '()', 'xé', [true, {}]],
    );
    assert.equal(value('parse_json(`{"big": 9223372036854775807}`).big.to_string()'), '9223372036854775807');
  });

  test('the top level must be an object', () => {
    assert.equal(failure('parse_json("[1, 2]")').kind, 'ErrorMismatchOutputType');
    assert.equal(failure('parse_json("42")').kind, 'ErrorMismatchOutputType');
  });

  test('malformed JSON is a parse error', () => {
    for (const bad of ['{"a": }', '{"a": 1', '{a: 1}', '{"a": 1} x', '{"a": 99999999999999999999}']) {
      const e = failure(`parse_json(${JSON.stringify(bad)})`);
      assert.equal(e.kind, 'ErrorParsing', bad);
    }
  });

  test('nesting deeper than the expression depth limit is refused', () => {
    const deep = `${'{"a":'.repeat(100)}1${'}'.repeat(100)}`;
    assert.equal(failure(`parse_json(${JSON.stringify(deep)})`).parseError, 'ExprTooDeep');
  });
});
