import { parseError, RhaiError } from '../errors.js';
import type { EvaluationContext } from '../evaluation-context.js';
import { fromBigInt } from '../int-math.js';
import { checkSize, checkString } from '../runtime.js';
import type { RhaiMap, RhaiValue } from '../values.js';
import { RhaiFloat, typeOf } from '../values.js';
import { stringArgument } from './args.js';
import { defineFunction } from './registry.js';

const INT_MIN = -(1n << 63n);
const INT_MAX = (1n << 63n) - 1n;
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

/**
 * Rhai's `parse_json`: JSON text whose top level is an object becomes an object map. As Rhai reads
 * it with its own lexer, a number without a fraction or exponent is an INT (a parse error beyond
 * 64 bits), any other number a FLOAT, and `null` is `()`. Nesting deeper than the expression depth
 * limit is a parse error, as it is for a script.
 */
export function parseJson(context: EvaluationContext, text: string): RhaiValue {
  let i = 0;
  const fail = (what: string): never => {
    const line = text.slice(0, i).split('\n').length;
    const column = i - text.lastIndexOf('\n', i - 1);
    throw parseError('BadInput', `${what} in JSON`, line, column);
  };
  const space = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const expect = (ch: string): void => {
    space();
    if (text[i] !== ch) fail(`Expecting '${ch}'`);
    i++;
  };
  const string = (): string => {
    let end = i + 1;
    while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
    if (end >= text.length) fail('Unterminated string');
    try {
      const s = JSON.parse(text.slice(i, end + 1)) as string;
      i = end + 1;
      return checkString(context, s);
    } catch (e) {
      if (e instanceof RhaiError) throw e;
      return fail('Invalid string');
    }
  };
  const number = (): RhaiValue => {
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) return fail(`Unexpected '${text[i] ?? 'end of input'}'`);
    i += m[0].length;
    if (m[1] === undefined && m[2] === undefined) {
      const n = BigInt(m[0]);
      if (n < INT_MIN || n > INT_MAX) fail(`Integer overflow: ${m[0]}`);
      return fromBigInt(n);
    }
    return new RhaiFloat(Number(m[0]));
  };
  const value = (depth: number): RhaiValue => {
    if (depth > context.limits.maxExprDepth)
      throw parseError('ExprTooDeep', 'Expression exceeds maximum complexity', 1, i + 1);
    space();
    const ch = text[i];
    if (ch === '{') {
      i++;
      const map: RhaiMap = new Map();
      space();
      if (text[i] === '}') {
        i++;
        return map;
      }
      for (;;) {
        space();
        if (text[i] !== '"') fail('Expecting a property name');
        const key = string();
        expect(':');
        map.set(key, value(depth + 1));
        checkSize(context, map);
        space();
        if (text[i] === ',') i++;
        else break;
      }
      expect('}');
      return map;
    }
    if (ch === '[') {
      i++;
      const items: RhaiValue[] = [];
      space();
      if (text[i] === ']') {
        i++;
        return items;
      }
      for (;;) {
        items.push(value(depth + 1));
        checkSize(context, items);
        space();
        if (text[i] === ',') i++;
        else break;
      }
      expect(']');
      return items;
    }
    if (ch === '"') return string();
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', undefined],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    return number();
  };
  const result = value(1);
  space();
  if (i < text.length) fail(`Unexpected '${text[i]}'`);
  if (!(result instanceof Map)) {
    throw new RhaiError(
      'ErrorMismatchOutputType',
      `Output type incorrect: ${typeOf(result)} (expecting map)`,
    );
  }
  return result;
}

defineFunction('parse_json', 1, 1, (context, a) => parseJson(context, stringArgument('parse_json', a, 0)));
