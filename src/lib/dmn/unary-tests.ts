import { unaryTest } from 'feelin';
import { feelVariables, rewriteArithmetic } from '../feel/index.js';
import type { FeelOutcome, Scope } from './feel-expression.js';

/** The unary tests of a decision table cell, compiled once. */
export interface CompiledUnaryTests {
  readonly text: string;
  /** Whether the hand-written fast form is used for primitive inputs. */
  readonly fast: boolean;
  /** Whether the input matches; `vars` are the variables visible to the table. */
  test(input: unknown, vars: Scope): boolean;
}

type Literal = number | string | boolean | null;
// true, false, or null when the input and the test's values are not comparable (FEEL's three-valued logic)
type Predicate = (input: number | string | boolean | null) => boolean | null;

/**
 * Compiles decision table unary tests. feelin parses on every `unaryTest` call (about 30µs), so the
 * common forms — `-`, literals, comparisons with a literal, ranges with literal ends, comma lists of
 * these and `not(...)` of a list — become JavaScript predicates, used when the input is a number,
 * string, boolean or null. They follow the FEEL specification: equality is two-valued, an ordering
 * test between values of different types is null, a list matches if one test is true, `not(...)` of a
 * null result does not match. (feelin's own `unaryTest` lets e.g. `"a"` match `<= 5`.) Everything else,
 * and any other input (e.g. a date), is tested by feelin.
 */
export function compileUnaryTests(text: string): CompiledUnaryTests {
  const slow = (input: unknown, vars: Scope): boolean => unaryTestSlow(text, input, vars).value === true;
  const predicate = compileFast(text);
  if (predicate === null) return { text, fast: false, test: slow };
  return {
    text,
    fast: true,
    test(input, vars) {
      if (input === undefined || input === null) return predicate(null) === true;
      const type = typeof input;
      if (type === 'number' || type === 'string' || type === 'boolean') {
        return predicate(input as number | string | boolean) === true;
      }
      return slow(input, vars);
    },
  };
}

/** Runs feelin's unary test, turning a thrown syntax error into a warning. */
export function unaryTestSlow(text: string, input: unknown, vars: Scope): FeelOutcome {
  try {
    const source = rewriteArithmetic(text, Object.keys(vars), 'unaryTests');
    const { value, warnings } = unaryTest(source, feelVariables(source, { ...vars, '?': input ?? null }));
    return { value, warnings };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return {
      value: null,
      warnings: [
        {
          type: 'FUNCTION_INVOCATION_FAILURE',
          message,
          position: { from: 0, to: 0 },
          details: { template: message, values: {} },
        },
      ],
    };
  }
}

const TOKEN =
  /\s*(?:("[^"\\]*")|(-?\d+(?:\.\d+)?)|(\.\.|<=|>=|<|>|\(|\)|\[|\]|,|-)|([A-Za-z_][A-Za-z0-9_]*))/y;

type Token = { kind: 'lit'; value: Literal } | { kind: 'op'; value: string };

function tokenize(text: string): Token[] | null {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const m = TOKEN.exec(text);
    if (m === null) return null;
    if (m[1] !== undefined) tokens.push({ kind: 'lit', value: m[1].slice(1, -1) });
    else if (m[2] !== undefined) tokens.push({ kind: 'lit', value: Number(m[2]) });
    else if (m[3] !== undefined) tokens.push({ kind: 'op', value: m[3] });
    else if (m[4] === 'true' || m[4] === 'false') tokens.push({ kind: 'lit', value: m[4] === 'true' });
    else if (m[4] === 'null') tokens.push({ kind: 'lit', value: null });
    else if (m[4] === 'not') tokens.push({ kind: 'op', value: 'not' });
    else return null;
  }
  return tokens;
}

function compileFast(text: string): Predicate | null {
  const tokens = tokenize(text);
  if (tokens === null || tokens.length === 0) return null;
  if (tokens.length === 1 && tokens[0]?.kind === 'op' && tokens[0].value === '-') return () => true;
  const first = tokens[0];
  const last = tokens[tokens.length - 1];
  if (first?.kind === 'op' && first.value === 'not') {
    if (tokens[1]?.value !== '(' || last?.value !== ')' || last.kind !== 'op') return null;
    const inner = compileList(tokens.slice(2, -1));
    if (inner === null) return null;
    return (input) => {
      const result = inner(input);
      return result === null ? null : !result;
    };
  }
  return compileList(tokens);
}

function compileList(tokens: Token[]): Predicate | null {
  const items: Predicate[] = [];
  let start = 0;
  for (let i = 0; i <= tokens.length; i++) {
    const token = tokens[i];
    if (i === tokens.length || (token?.kind === 'op' && token.value === ',')) {
      const item = compileItem(tokens.slice(start, i));
      if (item === null) return null;
      items.push(item);
      start = i + 1;
    }
  }
  if (items.length === 1) return items[0] ?? null;
  return (input) => {
    let unknown = false;
    for (const item of items) {
      const result = item(input);
      if (result === true) return true;
      if (result === null) unknown = true;
    }
    return unknown ? null : false;
  };
}

function compileItem(tokens: Token[]): Predicate | null {
  const [a, b, c, d, e] = tokens;
  if (tokens.length === 1 && a?.kind === 'lit') {
    const value = a.value;
    return value === null ? (input) => input === null : (input) => input === value;
  }
  if (tokens.length === 2 && a?.kind === 'op' && b?.kind === 'lit' && isOrdered(b.value)) {
    const bound = b.value;
    const kind = typeof bound;
    switch (a.value) {
      case '<':
        return (input) => (typeof input === kind ? (input as typeof bound) < bound : null);
      case '<=':
        return (input) => (typeof input === kind ? (input as typeof bound) <= bound : null);
      case '>':
        return (input) => (typeof input === kind ? (input as typeof bound) > bound : null);
      case '>=':
        return (input) => (typeof input === kind ? (input as typeof bound) >= bound : null);
      default:
        return null;
    }
  }
  if (
    tokens.length === 5 &&
    a?.kind === 'op' &&
    b?.kind === 'lit' &&
    c?.kind === 'op' &&
    c.value === '..' &&
    d?.kind === 'lit' &&
    e?.kind === 'op' &&
    isOrdered(b.value) &&
    isOrdered(d.value) &&
    typeof b.value === typeof d.value
  ) {
    const openLow = a.value === '(' || a.value === ']';
    const openHigh = e.value === ')' || e.value === '[';
    if (!['(', ']', '['].includes(a.value) || ![')', '[', ']'].includes(e.value)) return null;
    const low = b.value;
    const high = d.value;
    const kind = typeof low;
    return (input) => {
      if (typeof input !== kind) return null;
      const v = input as typeof low;
      return (openLow ? v > low : v >= low) && (openHigh ? v < high : v <= high);
    };
  }
  return null;
}

function isOrdered(value: Literal): value is number | string {
  return typeof value === 'number' || typeof value === 'string';
}
