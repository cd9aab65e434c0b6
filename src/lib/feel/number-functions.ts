import type { FeelFunction } from 'feelin';
import { feelinBuiltin, override } from './builtin-function.js';

/**
 * FEEL's rounding functions with the scale DMN 1.5 allows (10.3.4.5): an integer in −6111..6176, the
 * exponent range of an IEEE 754 decimal128; a scale out of that range makes the call null (feelin
 * accepted any number), a decimal scale is cut to its integer part (FEEL's decimal-to-integer
 * parameter conversion; feelin scaled by the fraction). The rounding itself is feelin's.
 */

const MIN_SCALE = -6111;
const MAX_SCALE = 6176;

function withScaleCheck(name: string): FeelFunction {
  const original = feelinBuiltin(name);
  return override(original, (n, scale) => {
    if (typeof scale !== 'number') return original(n, scale);
    const integer = Math.trunc(scale);
    return integer >= MIN_SCALE && integer <= MAX_SCALE ? original(n, integer) : null;
  });
}

/** The rounding overrides, by their FEEL names. */
export const numberFunctions: Readonly<Record<string, FeelFunction>> = Object.fromEntries(
  ['decimal', 'floor', 'ceiling', 'round up', 'round down', 'round half up', 'round half down'].map(
    (name) => [name, withScaleCheck(name)] as const,
  ),
);
