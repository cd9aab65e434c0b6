import { describe, test } from 'node:test';
import { fails, holds } from './helpers.js';

// langdef.md "Overflow": arithmetic and conversions that leave the range of int, timestamp or
// duration are errors.

describe('int64 overflow', () => {
  test('negating the smallest int overflows; other negations do not', () => {
    fails('-(-9223372036854775807 - 1)', /overflow/);
    holds('-(-9223372036854775807) == 9223372036854775807');
  });

  test('dividing the smallest int by -1 overflows', () => {
    fails('(-9223372036854775807 - 1) / -1', /overflow/);
    holds('(-9223372036854775807 - 1) / 1 == -9223372036854775807 - 1');
  });
});

describe('double to int conversion', () => {
  test('is limited to (minInt, maxInt), both ends excluded', () => {
    fails('int(9223372036854775807.0)', /overflow/);
    fails('int(-9223372036854775808.0)', /overflow/);
    fails('int(1e300)', /overflow/);
    fails('int(double("NaN"))', /overflow/);
    holds('int(9223372036854774784.0) == 9223372036854774784');
    holds('int(-2.9) == -2');
  });

  test('uint(double) is limited to the uint range', () => {
    fails('uint(18446744073709551616.0)', /overflow/);
    fails('uint(-1.0)', /overflow/);
    holds('uint(2.9) == 2u');
  });
});

describe('duration range', () => {
  test('a duration is limited to int64 nanoseconds (about 292 years)', () => {
    fails("duration('9223372037s')", /range/);
    fails("duration('-9223372037s')", /range/);
    holds("duration('9223372036s') > duration('0s')");
  });

  test('adding or subtracting durations beyond the range is an error', () => {
    fails("duration('5000000000s') + duration('5000000000s')", /range/);
    fails("duration('-5000000000s') - duration('5000000000s')", /range/);
    holds("duration('1.5s') + duration('-2s') == duration('-500ms')");
    holds("duration('1s') - duration('1500ms') == duration('-0.5s')");
  });
});

describe('timestamp range', () => {
  test('timestamps stay within years 1 to 9999', () => {
    fails("timestamp('9999-12-31T23:59:00Z') + duration('1m')", /range/);
    fails("timestamp('0001-01-01T00:00:30Z') - duration('31s')", /range/);
    holds("timestamp('9999-12-31T23:58:59Z') + duration('1m') == timestamp('9999-12-31T23:59:59Z')");
  });

  test('the difference of timestamps is a duration and must be in its range', () => {
    fails("timestamp('9000-01-01T00:00:00Z') - timestamp('1000-01-01T00:00:00Z')", /range/);
    holds("timestamp('2000-01-01T00:01:00Z') - timestamp('2000-01-01T00:00:00Z') == duration('60s')");
  });
});
