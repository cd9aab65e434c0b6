import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { evaluate } from 'feelin';
import { compileExpression, evaluateSlow } from '../../../src/lib/dmn/feel-expression.js';

// Both ways FEEL is evaluated here (feelin on the text, and the DMN's compiled form) must agree. A
// refusal of the layer (a range it will not iterate) is null with a warning in both.
function feel(text: string, vars: Record<string, unknown> = {}): unknown {
  const slow = evaluateSlow(text, vars).value;
  const compiled = compileExpression(text, Object.keys(vars)).evaluate(vars).value;
  assert.equal(String(compiled), String(slow), `${text}: the compiled form agrees`);
  return slow;
}
const show = (text: string): string => String(feel(text));

describe('FEEL builtins where feelin departs from DMN 1.5 (a layer of overrides)', () => {
  test('years and months duration counts whole months, days left out (10.3.4.1)', () => {
    assert.equal(show('years and months duration(date("2011-12-22"), date("2013-08-24"))'), 'P1Y8M');
    assert.equal(show('years and months duration(date("2013-08-24"), date("2011-12-22"))'), '-P1Y8M');
    assert.equal(show('years and months duration(date("2015-01-21"), date("2016-01-21"))'), 'P1Y');
    assert.equal(
      show(
        'years and months duration(date and time("2016-09-30T23:25:00"), date and time("2017-12-28T12:12:12"))',
      ),
      'P1Y2M',
    );
    assert.equal(show('years and months duration(from: date("2016-01-21"), to: date("2015-01-21"))'), '-P1Y');
    assert.equal(feel('years and months duration(date("2016-01-21"), null)'), null);
  });

  test('dates and date-times with negative or long years', () => {
    assert.equal(show('date("-2016-01-30")'), '-002016-01-30');
    assert.equal(feel('date("-2016-01-30").year'), -2016);
    assert.equal(feel('date("99999-12-31").year'), 99999);
    assert.equal(feel('date and time("-2017-02-28T02:02:02").year'), -2017);
    assert.equal(
      show(
        'years and months duration(date and time("-2016-01-30T09:05:00"), date and time("-2017-02-28T02:02:02"))',
      ),
      '-P11M',
    );
    assert.equal(feel('date("-02016-01-30")'), null, 'a year of more than four digits has no leading zero');
  });

  test('a zero offset is UTC (Z); an offset beyond ±18:00, or an offset with a zone id, is invalid', () => {
    assert.equal(show('time("11:22:33+00:00")'), '11:22:33Z');
    assert.equal(show('time("11:22:33-00:00")'), '11:22:33Z');
    assert.equal(show('time(date and time("2017-08-10T10:20:00+00:00"))'), '10:20:00Z');
    assert.equal(show('time(11, 59, 45, duration("-PT0H"))'), '11:59:45Z');
    assert.equal(show('date and time("2017-08-10T10:20:00-00:00")'), '2017-08-10T10:20:00Z');
    assert.equal(show('time("13:20:00+18:00")'), '13:20:00+18:00');
    assert.equal(feel('time("13:20:00+19:00")'), null);
    assert.equal(feel('time("13:20:00-19:00")'), null);
    assert.equal(feel('time(13, 20, 0, duration("PT19H"))'), null);
    assert.equal(feel('time("13:20:00+02:00@Europe/Paris")'), null);
    assert.equal(feel('date and time("2017-08-10T13:20:00+02:00@Europe/Paris")'), null);
    assert.equal(show('time("13:20:00@Europe/Paris")'), '13:20:00@Europe/Paris');
  });

  test('time(hour, minute, second, offset) keeps the fraction of the seconds', () => {
    assert.equal(show('time(12, 59, 1.3, duration("-PT1H"))'), '12:59:01.3-01:00');
    assert.equal(show('time(23, 59, 59.999999999)'), '23:59:59.999999999');
    assert.equal(show('time(12, 0, 1)'), '12:00:01');
  });

  test('overriding time does not change how type names with "time" in them parse', () => {
    assert.equal(feel('duration("P1D") instance of days and time duration'), true);
    assert.equal(feel('time("10:00:00") instance of time'), true);
  });

  test('rounding takes an integer scale in −6111..6176; a decimal scale is cut to its integer part', () => {
    assert.equal(feel('round up(5.5, 0)'), 6);
    assert.equal(feel('round up(5.5, 6176)'), 5.5);
    assert.equal(feel('round up(5.5, 6177)'), null);
    assert.equal(feel('round half up(5.5, -6112)'), null);
    assert.equal(feel('round half down(5.5, -6112)'), null);
    assert.equal(feel('round down(5.5, 6177)'), null);
    assert.equal(feel('decimal(1/3, 2.5)'), 0.33);
    assert.equal(feel('floor(1.56, 1)'), 1.5);
    assert.equal(feel('floor(1.5)'), 1);
  });

  test('list replace: a position from 1 or from the end, a match function of (item, newItem)', () => {
    assert.deepEqual(feel('list replace([1,2,3], 2, 4)'), [1, 4, 3]);
    assert.deepEqual(feel('list replace([1,2,3], -1, 4)'), [1, 2, 4]);
    assert.deepEqual(feel('list replace([1,2,3], 2.5, 4)'), [1, 4, 3]);
    assert.deepEqual(feel('list replace(1, 1, 5)'), [5]);
    assert.equal(feel('list replace([1,2,3], 4, 4)'), null);
    assert.equal(feel('list replace([1,2,3], -4, 4)'), null);
    assert.equal(feel('list replace([1,2,3], 0, 4)'), null);
    assert.deepEqual(feel('list replace([2, 4], function(item, newItem) item = 2, 5)'), [5, 4]);
    assert.equal(feel('list replace([2, 4], function(item) item = 2, 5)'), null);
    assert.equal(feel('list replace([2, 4], function(item, newItem, other) item = 2, 5)'), null);
    assert.equal(feel('list replace([2, 4], function(item, newItem) item, 5)'), null);
  });

  test('iteration over a range of dates goes day by day; a range of strings is not iterable', () => {
    assert.deepEqual((feel('for d in @"1980-01-30"..@"1980-02-01" return d') as unknown[]).map(String), [
      '1980-01-30',
      '1980-01-31',
      '1980-02-01',
    ]);
    assert.deepEqual((feel('for d in @"1980-01-03"..@"1980-01-01" return d') as unknown[]).map(String), [
      '1980-01-03',
      '1980-01-02',
      '1980-01-01',
    ]);
    assert.equal(feel('some d in @"2024-02-27"..@"2024-03-01" satisfies d = @"2024-02-29"'), true);
    assert.equal(feel('for c in "a".."c" return c'), null);
    assert.deepEqual(feel('for i in 1..3 return i'), [1, 2, 3]);
  });

  test('a variable of an overridden name still shadows the builtin', () => {
    assert.equal(feel('time(1)', { time: evaluate('function(x) x + 1').value }), 2);
  });
});

describe('FEEL arithmetic on durations (DMN 1.5 10.3.2.3: *, / and unary - on durations)', () => {
  test('a duration times or divided by a number scales it; a years and months duration in whole months', () => {
    assert.equal(show('duration("P1DT2H") * 2'), 'P2DT4H');
    assert.equal(show('2 * duration("PT1H30M")'), 'PT3H');
    assert.equal(show('duration("P2D") / 4'), 'PT12H');
    assert.equal(show('duration("P1Y") * 1.5'), 'P1Y6M');
    assert.equal(show('years and months duration(date("2020-01-01"), date("2021-02-01")) * -2'), '-P2Y2M');
    assert.equal(show('duration("P1Y1M") / 2'), 'P6M');
  });

  test('a duration divided by one of the same kind is a number; by zero, null', () => {
    assert.equal(feel('duration("P1D") / duration("PT6H")'), 4);
    assert.equal(feel('duration("P2Y") / duration("P6M")'), 4);
    assert.equal(feel('duration("P1D") / 0'), null);
    assert.equal(feel('duration("P1D") / duration("PT0S")'), null);
    assert.equal(feel('duration("P1D") / duration("P1M")'), null);
  });

  test('negation of a duration, nested and in precedence with other operators', () => {
    assert.equal(show('-duration("P1D")'), '-P1D');
    assert.equal(show('-(-duration("P1Y"))'), 'P1Y');
    assert.equal(show('date("2020-01-10") + -duration("P2D") * 2'), '2020-01-06');
    assert.equal(feel('-x * 2 + 1', { x: 3 }), -5);
    assert.equal(feel('10 / 4 * 2'), 5);
  });

  test('the difference of date-times is the exact time between them, zones and offsets counted', () => {
    assert.equal(
      show('date and time("2016-12-24T23:59:00-08:00") - date and time("2015-12-24T00:00:01-01:00")'),
      'P367DT6H58M59S',
    );
    assert.equal(
      show('date and time("2020-01-01T00:00:00@Europe/Paris") - date and time("2020-01-01T00:00:00Z")'),
      '-PT1H',
    );
    assert.equal(show('time("10:00:00+02:00") - time("09:00:00Z")'), '-PT1H');
    assert.equal(show('date("2020-03-01") - date("2020-02-01")'), 'P29D');
    assert.equal(show('date("2020-01-01") - duration("P1D")'), '2019-12-31');
    assert.equal(show('duration("P1D") - duration("PT1H")'), 'PT23H');
    assert.equal(feel('duration("P1Y") - duration("PT1H")'), null);
    assert.equal(feel('date("2020-01-01") - time("10:00:00")'), null);
    assert.equal(feel('x - y - 1', { x: 10, y: 4 }), 5);
  });

  test('a result beyond a duration range, or operands of other types, are null', () => {
    assert.equal(feel('duration("P1D") * 100000000000000000000'), null);
    assert.equal(feel('duration("P1D") * "2"'), null);
    assert.equal(feel('"a" * 2'), null);
    assert.equal(feel('-"a"'), null);
    assert.equal(feel('null * duration("P1D")'), null);
  });
});
