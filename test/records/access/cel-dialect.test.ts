import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { withBlockReferences, withOptionalEntries, withPlainSyntax } from '../../../src/lib/cel/index.js';
import {
  celEnvironment,
  celProblem,
  celSource,
  compileRule,
  type CelInput,
} from '../../../src/records/access/cel-rules.js';

// The CEL extensions of weft's dialect, each as its cel-spec / cel-go documentation describes it.

const env = celEnvironment({ unlistedVariablesAreDyn: true });

function run(expression: string, bindings: Record<string, unknown> = {}): unknown {
  return env.evaluate(celSource(expression), bindings);
}

function holds(expression: string, bindings: Record<string, unknown> = {}): void {
  assert.equal(run(expression, bindings), true, expression);
}

function fails(expression: string, message: RegExp = /./): void {
  assert.throws(() => run(expression), message, expression);
}

describe('strings extension', () => {
  test('format substitutes %s, %d, %f, %e, %b, %o, %x, %X and escapes %%', () => {
    assert.equal(run('"%s is %d years".format(["Ada", 36])'), 'Ada is 36 years');
    assert.equal(run('"100%% %s".format(["sure"])'), '100% sure');
    assert.equal(run('"%.2f|%f".format([3.14159, 2.5])'), '3.14|2.500000');
    assert.equal(run('"%e|%.2e".format([1234.5678, 0.000123])'), '1.234568e+03|1.23e-04');
    assert.equal(run('"%b %o %x %X".format([10, 8, 255, 255])'), '1010 10 ff FF');
    assert.equal(run('"%x".format(["hi"])'), '6869');
    assert.equal(run('"%d|%f".format([double("NaN"), double("-Infinity")])'), 'NaN|-Infinity');
  });

  test('format rounds a double half to even on its exact value', () => {
    assert.equal(run('"%.0f %.0f %.0f".format([0.5, 1.5, 2.5])'), '0 2 2');
    // 0.125 is exact in binary: a true tie, to even; 2.675 is stored just below the tie.
    assert.equal(run('"%.2f %.2f".format([0.125, 2.675])'), '0.12 2.67');
    // As Go's strconv: a negative number keeps its sign when it rounds to zero.
    assert.equal(run('"%.1f".format([-0.04])'), '-0.0');
  });

  test('format writes %s of lists, maps (keys sorted), null, bool, timestamps and durations', () => {
    assert.equal(run('"%s".format([[1, "a", 2.5, null, true]])'), '[1, a, 2.5, null, true]');
    assert.equal(run('"%s".format([{"b": 1, "a": [2]}])'), '{a: [2], b: 1}');
    assert.equal(
      run('"%s %s".format([timestamp("2024-01-02T03:04:05Z"), duration("90m")])'),
      '2024-01-02T03:04:05Z 5400s',
    );
  });

  test('format fails on a clause it does not know, a missing argument or a wrong kind', () => {
    fails('"%a".format([1])', /unrecognized formatting clause/);
    fails('"%s %s".format([1])', /index 1 out of range/);
    fails('"%d".format(["x"])', /decimal clause can only be used on integers/);
    fails('"%b".format([1.5])', /binary/);
  });

  test('charAt reads a code point; the end gives "" and beyond it an error', () => {
    assert.equal(run("'héllo'.charAt(1)"), 'é');
    assert.equal(run("'abc'.charAt(3)"), '');
    fails("'abc'.charAt(4)");
  });

  test('replace replaces all or the first n occurrences; reverse reverses code points', () => {
    assert.equal(run("'hello hello'.replace('he', 'we')"), 'wello wello');
    assert.equal(run("'hello hello'.replace('he', 'we', 1)"), 'wello hello');
    assert.equal(run("'ab'.replace('', '_')"), '_a_b_');
    assert.equal(run("'gums'.reverse()"), 'smug');
  });

  test('strings.quote makes a double-quoted literal with escapes', () => {
    assert.equal(run('strings.quote("say \\"hi\\"\\n")'), '"say \\"hi\\"\\n"');
  });
});

describe('math extension', () => {
  test('greatest and least take numbers of any kind or one list', () => {
    holds('math.greatest(1, 2.5, -3) == 2.5');
    holds('math.least([3, 1, 2]) == 1');
    holds('math.greatest(7) == 7');
    fails('math.greatest([])');
    fails("math.least(1, 'a')");
  });

  test('ceil, floor, trunc and round (half away from zero) on doubles', () => {
    holds('math.ceil(1.2) == 2.0 && math.floor(-1.2) == -2.0 && math.trunc(-1.7) == -1.0');
    holds('math.round(2.5) == 3.0 && math.round(-2.5) == -3.0 && math.round(1.4) == 1.0');
  });

  test('abs, sign, sqrt and the floating-point predicates', () => {
    holds('math.abs(-5) == 5 && math.abs(-1.5) == 1.5 && math.sign(-7) == -1 && math.sign(0.0) == 0.0');
    fails('math.abs(-9223372036854775808)', /overflow/);
    holds('math.sqrt(16) == 4.0 && math.isNaN(math.sqrt(-1.0))');
    holds('math.isInf(1.0 / 0.0) && !math.isFinite(1.0 / 0.0) && math.isFinite(1.0)');
  });

  test('bit functions on 64-bit two’s complement ints; right shift is logical', () => {
    holds('math.bitAnd(12, 10) == 8 && math.bitOr(12, 10) == 14 && math.bitXor(12, 10) == 6');
    holds('math.bitNot(0) == -1 && math.bitShiftLeft(1, 63) == -9223372036854775808');
    holds('math.bitShiftRight(-1, 60) == 15 && math.bitShiftLeft(1, 64) == 0');
    fails('math.bitShiftLeft(1, -1)', /negative offset/);
  });
});

describe('two-variable comprehensions', () => {
  test('all, exists and existsOne see the index (or key) and the value', () => {
    holds('[10, 20].all(i, v, v == (i + 1) * 10)');
    holds("{'a': 1, 'b': 2}.exists(k, v, k == 'b' && v == 2)");
    holds('[1, 2, 3].existsOne(i, v, v == i + 1) == false');
    holds('[5, 6].existsOne(i, v, i == 1)');
  });

  test('a quantifier absorbs an error its result does not depend on', () => {
    holds('[0, 1].exists(i, v, 1 / v == 1)');
    holds('[0, 1].all(i, v, 1 / v == 0) == false');
    fails('[0, 1].all(i, v, 1 / v == 1)', /division by zero/);
    // A predicate value that is not a bool is such an error too.
    holds("['x', true].exists(i, v, dyn(v)) && !['x', false].all(i, v, dyn(v))");
    fails("['x', true].all(i, v, dyn(v))", /must return bool/);
  });

  test('transformList, transformMap and transformMapEntry, with and without a filter', () => {
    assert.deepEqual(run('[1, 2, 3].transformList(i, v, i > 0, v * 2)'), [4n, 6n]);
    holds("{'a': 1, 'b': 2}.transformMap(k, v, v + 1) == {'a': 2, 'b': 3}");
    holds('[3, 4].transformMap(i, v, v % 2 == 0, v) == {1: 4}');
    holds("['x', 'y'].transformMapEntry(i, v, {v: i}) == {'x': 0, 'y': 1}");
    fails('[1, 1].transformMapEntry(i, v, {v: i})', /already exists/);
  });

  test('an int-keyed map literal iterates with int keys', () => {
    holds("{6: 'six', 7: 'seven'}.exists(k, v, k % 5 == 2 && v == 'seven')");
  });
});

describe('optional values', () => {
  test('optional.ofNonZeroValue is empty for a zero value', () => {
    holds("!optional.ofNonZeroValue('').hasValue() && !optional.ofNonZeroValue([]).hasValue()");
    holds('optional.ofNonZeroValue(1) == optional.of(1)');
  });

  test('optMap and optFlatMap run on a present value only', () => {
    holds('optional.of(2).optMap(x, x * 2) == optional.of(4)');
    holds('!optional.none().optMap(x, x * 2).hasValue()');
    holds('!optional.of({}).optFlatMap(m, m.?a).hasValue()');
    holds("optional.of({'a': 1}).optFlatMap(m, m.?a) == optional.of(1)");
  });

  test('optionals compare by presence and value', () => {
    holds('optional.none() == optional.none() && optional.of(1) != optional.none()');
    holds('optional.of(1) == optional.of(1.0) && optional.of(1) != optional.of(2)');
  });
});

describe('timestamp and duration conversions', () => {
  test('int, string and identity conversions', () => {
    holds("int(timestamp('2009-02-13T23:31:30Z')) == 1234567890");
    holds("string(timestamp('2009-02-13T23:31:30.500Z')) == '2009-02-13T23:31:30.5Z'");
    holds("string(duration('90m')) == '5400s' && string(duration('-1.5s')) == '-1.5s'");
    holds("timestamp(timestamp('2009-02-13T23:31:30Z')) == timestamp('2009-02-13T23:31:30Z')");
    holds("duration(duration('1s')) == duration('1s')");
  });
});

describe('block extension', () => {
  test('cel.block binds slots in order for the body', () => {
    holds('cel.block([1, cel.index(0) + 1, cel.index(1) * 3], cel.index(2)) == 6');
    holds('cel.block([[1, 2, 3]], cel.index(0).map(cel.iterVar(0, 0), cel.iterVar(0, 0) * 2)) == [2, 4, 6]');
  });

  test('the rewrite leaves string literals, comments and member calls alone', () => {
    assert.equal(withBlockReferences("'cel.index(0)' + x"), "'cel.index(0)' + x");
    assert.equal(withBlockReferences('r"cel.index(0)\\" + x'), 'r"cel.index(0)\\" + x');
    assert.equal(withBlockReferences('a.cel.index(0) // cel.index(1)'), 'a.cel.index(0) // cel.index(1)');
    assert.equal(withBlockReferences('cel.index( 2 )'), '__cel_index_2__');
  });
});

describe('syntax cel-js does not parse', () => {
  test('a float literal may omit its leading zero', () => {
    holds('.5 + .25 == 0.75 && [.5][0] == 0.5');
    assert.equal(withPlainSyntax("a.b + '.5'"), "a.b + '.5'");
  });

  test('a quoted field name selects a map key, also optionally and in has()', () => {
    holds("{'content-type': 'text'}.`content-type` == 'text'");
    holds("!{'a': 1}.?`b-c`.hasValue() && {'b-c': 2}.?`b-c` == optional.of(2)");
    holds("has({'a.b': 1}.`a.b`) && !has({'a': 1}.`a.b`)");
    assert.equal(withPlainSyntax("'x.`y`'"), "'x.`y`'");
  });

  test('optional entries of list and map literals are kept only when present', () => {
    holds('[1, ?optional.of(2), ?optional.none(), 3] == [1, 2, 3]');
    holds("{'a': 1, ?'b': optional.none(), ?'c': optional.of(3)} == {'a': 1, 'c': 3}");
    holds("{?'k': {}.?x} == {} && [[?optional.of(1)]] == [[1]]");
    holds('2 in [1, ?optional.of(2)] && !(3 in [?optional.none()])');
    holds("{'a': true ? 1 : 2, ?'b': optional.of(false ? 3 : 4)} == {'a': 1, 'b': 4}");
    // An index with `[?` is an optional index, not a literal.
    assert.equal(withOptionalEntries("m[?'k']"), "m[?'k']");
    fails('[?1]', /optional/);
  });

  test('has() of a selection on an expression tests the key of its value', () => {
    holds("!has({}.a) && has({'a': {'b': 1}}.a.b) && has([{'x': 1}][0].x)");
    holds("cel.bind(m, {'k': 1}, has(m.k))");
  });
});

describe('access rules use the dialect', () => {
  const actor: CelInput['actor'] = { id: 'a1', roles: ['clerk'], attributes: { region: 'eu' }, scope: {} };

  function allows(condition: string, record: Record<string, unknown>): boolean {
    assert.equal(celProblem('read', condition), undefined, condition);
    return compileRule({ operation: 'read', condition, message: 'no' }).evaluate({
      actor,
      record,
      now: new Date(),
    });
  }

  test('extensions compile and run in a rule', () => {
    assert.equal(
      allows("record.lines.all(i, l, l.qty > 0) && record.code == 'PO-%d'.format([record.n])", {
        lines: [{ qty: 1n }, { qty: 2n }],
        code: 'PO-7',
        n: 7n,
      }),
      true,
    );
    assert.equal(allows('math.greatest(record.a, record.b) <= 10', { a: 3n, b: 12n }), false);
    assert.equal(allows("record.name.replace('-', ' ').charAt(0) == 'a'", { name: 'a-b' }), true);
  });

  test('a rule whose extension call fails denies', () => {
    assert.equal(allows("'%d'.format([record.name]) == 'x'", { name: 'text' }), false);
  });
});
