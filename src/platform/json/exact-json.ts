import { isLosslessNumber, LosslessNumber, parse, stringify } from 'lossless-json';
import { roundTrips } from './decimal-text.js';
import { findInexactNumbers } from './inexact-numbers.js';

/**
 * JSON values that keep every digit of their numbers through a parse and a serialization: numbers
 * a 64-bit float holds become JavaScript numbers, the others (9007199254740993, 1e400) stay their
 * text in a `LosslessNumber`. For answers built in JavaScript from JSON text the database wrote.
 */

function exactNumber(text: string): number | LosslessNumber {
  return roundTrips(text) ? Number(text) : new LosslessNumber(text);
}

/**
 * `JSON.parse` of `json`, except that a number a double cannot hold is kept as its text (one
 * regular-expression test decides: nearly every text takes the native parse).
 */
export function parseExactJson(json: string): unknown {
  if (findInexactNumbers(json) === null) return JSON.parse(json) as unknown;
  return parse(json, null, exactNumber);
}

/** `JSON.stringify` of a value from `parseExactJson`, writing kept numbers as their text. */
export function stringifyExactJson(value: unknown): string {
  let exact = false;
  const native = JSON.stringify(value, (_key, member: unknown) => {
    if (isLosslessNumber(member)) exact = true;
    return member;
  });
  if (!exact) return native;
  return stringify(value) ?? native;
}
