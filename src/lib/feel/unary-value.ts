import { FeelFunction } from 'feelin';

/** The function a unary test that is a plain expression is wrapped in (see rewriteArithmetic). */
export const UNARY_VALUE_NAME = '__feel_unary_value';

/**
 * The value of a unary test that is an expression without `?`, as feelin should compare it with the
 * input: a boolean becomes a test of equality with the input (feelin calls a function value with the
 * input), anything else is compared by feelin as before (equality, list membership, range).
 */
export const unaryValueFunctions: Readonly<Record<string, FeelFunction>> = {
  [UNARY_VALUE_NAME]: new FeelFunction(
    (value: unknown) => (typeof value === 'boolean' ? (input: unknown) => input === value : value),
    ['value'],
  ),
};
