import { parseExpression, parseUnaryTests } from 'feelin';
import { ARITHMETIC_NAMES } from './duration-arithmetic.js';
import { UNARY_VALUE_NAME } from './unary-value.js';

/**
 * feelin's `*`, `/` and unary `-` take numbers only, and its `-` between date-times ignores their
 * zones; FEEL does better (see duration-arithmetic.ts). As feelin's operators cannot be reached, a
 * text that uses them is rewritten once, on its parse tree, into calls of our operator functions
 * (`a * -b` becomes `__feel_multiply(a, __feel_negate(b))`), which behave as feelin for numbers. The
 * tree keeps precedence; a negative number literal, and a binary `-` with a number literal on either
 * side (it can only be numbers or an error, which feelin gets right), stay as they are; a text that
 * does not parse is left alone (its evaluation reports the syntax error).
 *
 * In unary tests, a test that is an expression not mentioning `?` is compared with the input
 * (DMN 1.5 10.3.2.11: `? = e`, or `?` in `e` for a list or range); feelin takes a boolean result as
 * the test's outcome instead, so `Complex.aBoolean` matched any input when true. Such a test is
 * wrapped in a call that turns a boolean into an equality test.
 */

type Node = ReturnType<typeof parseExpression>['topNode'];

const OPERATORS: Record<string, string> = {
  '*': ARITHMETIC_NAMES.multiply,
  '/': ARITHMETIC_NAMES.divide,
  '-': ARITHMETIC_NAMES.subtract,
};
const MAY_NEED = /[*/-]/;
const MAX_REMEMBERED = 10_000;
const remembered = new Map<string, string>();

function mentionsInput(node: Node): boolean {
  let found = false;
  const cursor = node.cursor();
  do {
    if (cursor.name === '?') found = true;
  } while (!found && cursor.next() && cursor.from < node.to);
  return found;
}

// A test the rewrite leaves to feelin: a comparison or interval (`< 5`, `[1..2]`), a literal.
const TEST_FORMS = new Set([
  'SimplePositiveUnaryTest',
  'BooleanLiteral',
  'NumericLiteral',
  'StringLiteral',
  'nil',
]);

function rebuild(node: Node, text: string): string {
  if (node.name === 'PositiveUnaryTest') {
    const test = node.firstChild;
    if (test !== null && test.nextSibling === null && !TEST_FORMS.has(test.name) && !mentionsInput(test)) {
      return `${UNARY_VALUE_NAME}(${rebuild(test, text)})`;
    }
  }
  if (node.name === 'ArithmeticExpression') {
    const parts: Node[] = [];
    for (let c = node.firstChild; c !== null; c = c.nextSibling) parts.push(c);
    const [first, second, third] = parts;
    if (
      parts.length === 2 &&
      first?.name === 'ArithOp' &&
      text.slice(first.from, first.to) === '-' &&
      second
    ) {
      return `${ARITHMETIC_NAMES.negate}(${rebuild(second, text)})`;
    }
    if (parts.length === 3 && first && second?.name === 'ArithOp' && third) {
      const operator = text.slice(second.from, second.to);
      const numeric = first.name === 'NumericLiteral' || third.name === 'NumericLiteral';
      const fn = operator === '-' && numeric ? undefined : OPERATORS[operator];
      if (fn !== undefined) return `${fn}(${rebuild(first, text)}, ${rebuild(third, text)})`;
    }
  }
  let out = '';
  let at = node.from;
  for (let c = node.firstChild; c !== null; c = c.nextSibling) {
    out += text.slice(at, c.from) + rebuild(c, text);
    at = c.to;
  }
  return out + text.slice(at, node.to);
}

const SIMPLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The text with `*`, `/` and unary `-` as calls of our operator functions, or the text itself when it
 * has none (or does not parse). `names` are the names in scope: the parser needs those with spaces or
 * operator characters (`Loan Amount`, `a-b`) to read them as one name. Rewrites of recent texts are
 * remembered.
 */
export function rewriteArithmetic(
  text: string,
  names: Iterable<string>,
  mode: 'expression' | 'unaryTests' = 'expression',
): string {
  if (mode === 'expression' && !MAY_NEED.test(text)) return text;
  const special: string[] = [];
  for (const name of names) if (!SIMPLE_NAME.test(name) && text.includes(name)) special.push(name);
  const key = `${mode === 'expression' ? 'e' : 'u'}${special.join('\u0001')}\u0000${text}`;
  const known = remembered.get(key);
  if (known !== undefined) return known;
  let rewritten = text;
  try {
    const context = Object.fromEntries(special.map((name) => [name, undefined]));
    const tree =
      mode === 'expression'
        ? parseExpression(text, context, undefined)
        : parseUnaryTests(text, context, undefined);
    let clean = true;
    let needed = false;
    tree.iterate({
      enter(node) {
        if (node.type.isError) clean = false;
        if (node.name === 'ArithOp' && /^[*/-]$/.test(text.slice(node.from, node.to))) needed = true;
        if (node.name === 'PositiveUnaryTest') needed = true;
        return clean ? undefined : false;
      },
    });
    if (clean && needed) rewritten = rebuild(tree.topNode, text);
  } catch {
    rewritten = text;
  }
  if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value as string);
  remembered.set(key, rewritten);
  return rewritten;
}
