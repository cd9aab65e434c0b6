import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { subMillisecondNanos } from '../../../src/lib/cel-engine/index.js';
import { holds, run } from './helpers.js';

// langdef.md: a timestamp has nanosecond precision within 0001-01-01..9999-12-31; timestamp and
// duration arithmetic is exact to the nanosecond; duration + timestamp is a timestamp.

describe('nanosecond timestamps', () => {
  test('keep the fraction digits beyond the millisecond', () => {
    const value = run("timestamp('2024-05-06T07:08:09.123456789Z')") as Date;
    assert.equal(value.getTime(), Date.parse('2024-05-06T07:08:09.123Z'));
    assert.equal(subMillisecondNanos(value), 456789);
  });

  test('compare and subtract to the nanosecond', () => {
    holds("timestamp('2024-01-01T00:00:00.000000002Z') > timestamp('2024-01-01T00:00:00.000000001Z')");
    holds("timestamp('2024-01-01T00:00:00.000000001Z') != timestamp('2024-01-01T00:00:00Z')");
    holds(
      "timestamp('2024-01-01T00:00:00.000000250Z') - timestamp('2024-01-01T00:00:00Z') == duration('250ns')",
    );
  });

  test('add durations with carries across the millisecond, before and after the epoch', () => {
    holds(
      "timestamp('2024-01-01T00:00:00.000999999Z') + duration('1ns') == timestamp('2024-01-01T00:00:00.001Z')",
    );
    holds(
      "timestamp('1970-01-01T00:00:00Z') - duration('1ns') == timestamp('1969-12-31T23:59:59.999999999Z')",
    );
  });

  test('the last nanosecond of year 9999 is the end of the range', () => {
    holds(
      "timestamp('9999-12-31T23:59:59.999999998Z') + duration('1ns') == timestamp('9999-12-31T23:59:59.999999999Z')",
    );
    assert.throws(() => run("timestamp('9999-12-31T23:59:59.999999999Z') + duration('1ns')"), /range/);
  });

  test('duration + timestamp is a timestamp', () => {
    holds("duration('1h') + timestamp('2024-01-01T00:00:00Z') == timestamp('2024-01-01T01:00:00Z')");
  });
});
