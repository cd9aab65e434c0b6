import { describe, test } from 'node:test';
import { holds } from './helpers.js';

// langdef.md "Comparison Operators": numbers of different types compare at runtime on one number
// line; as in cel-go and the conformance suite, the integer is compared as a double.

describe('int and double comparison', () => {
  test('compares the integer as a double', () => {
    holds('dyn(3) < 3.5 && dyn(4) > 3.5 && dyn(3) <= 3.0 && dyn(3) >= 3.0');
    holds('!(dyn(9223372036854775807) < 9223372036854775808.0)');
    holds('dyn(9223372036854775807) >= 9223372036854775808.0');
    holds('dyn(9223372036854775807) < 9223372036854777857.0');
  });

  test('a double outside the int range is above or below every int', () => {
    holds('dyn(-9223372036854775807 - 1) > -1e19 && dyn(9223372036854775807) < 1e19');
  });

  test('NaN is neither below, equal to nor above an int', () => {
    holds('!(dyn(1) < double("NaN")) && !(dyn(1) >= double("NaN")) && dyn(1) != double("NaN")');
  });

  test('equality of an int and a double follows the same rule', () => {
    holds('dyn(2) == 2.0 && dyn(2) != 2.5');
  });
});
