import { FeelFunction } from 'feelin';
import { feelinBuiltin, override } from './builtin-function.js';

/**
 * FEEL's `list replace` as DMN 1.5 specifies it (10.3.4.4): a position counts from 1, or from the end
 * when negative, and must name an item of the list (a decimal is cut to its integer part); a match function takes exactly (item, newItem) and
 * must answer true or false. Anything else makes the call null; feelin replaced at whatever index
 * JavaScript's slice made of it.
 */

const original = feelinBuiltin('list replace');

function listReplace(given: unknown, position: unknown, newItem: unknown, match: unknown): unknown {
  if (given === null || given === undefined) return null;
  // A single value where a list is expected is the list of that value (DMN 1.5 10.3.2.9.4).
  const list: unknown[] = Array.isArray(given) ? (given as unknown[]) : [given];
  const matcher = position ?? match;
  if (typeof matcher === 'number') {
    // A decimal position is cut to its integer part, as the decimal-to-integer parameters of FEEL's
    // other list functions are.
    const at = Math.trunc(matcher);
    if (at === 0 || Math.abs(at) > list.length) return null;
    const index = at > 0 ? at - 1 : list.length + at;
    const out = [...list];
    out[index] = newItem;
    return out;
  }
  if (!(matcher instanceof FeelFunction) || matcher.parameterNames.length !== 2) return null;
  const out: unknown[] = [];
  for (const item of list) {
    const hit: unknown = matcher.invoke([item, newItem]);
    if (typeof hit !== 'boolean') return null;
    out.push(hit ? newItem : item);
  }
  return out;
}

/** The list overrides, by their FEEL names. */
export const listFunctions: Readonly<Record<string, FeelFunction>> = {
  'list replace': override(original, listReplace),
};
