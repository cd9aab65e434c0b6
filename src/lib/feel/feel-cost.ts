import { parseExpression, parseUnaryTests } from 'feelin';

/** A parse tree as feelin's parser returns it. */
export type FeelTree = ReturnType<typeof parseExpression>;

// Builtins whose cost grows at most linearly with their arguments and that call no FEEL function.
const LINEAR_BUILTINS = new Set([
  'not',
  'is defined',
  'get or else',
  'number',
  'string',
  'date',
  'time',
  'date and time',
  'duration',
  'years and months duration',
  'now',
  'today',
  'substring',
  'string length',
  'upper case',
  'lower case',
  'substring before',
  'substring after',
  'contains',
  'starts with',
  'ends with',
  'matches',
  'replace',
  'split',
  'list contains',
  'count',
  'min',
  'max',
  'sum',
  'mean',
  'all',
  'any',
  'and',
  'or',
  'product',
  'sublist',
  'append',
  'concatenate',
  'insert before',
  'remove',
  'reverse',
  'index of',
  'decimal',
  'floor',
  'ceiling',
  'abs',
  'round up',
  'round down',
  'round half up',
  'round half down',
  'modulo',
  'sqrt',
  'log',
  'exp',
  'odd',
  'even',
  'is',
  'before',
  'after',
  'meets',
  'met by',
  'overlaps',
  'overlaps before',
  'overlaps after',
  'finishes',
  'finished by',
  'includes',
  'during',
  'starts',
  'started by',
  'coincides',
  'day of year',
  'day of week',
  'month of year',
  'week of year',
  'get value',
  'get entries',
  'context put',
  'context merge',
  'context',
  '__feel_multiply',
  '__feel_divide',
  '__feel_negate',
  '__feel_subtract',
  '__feel_unary_value',
]);

// Constructs that repeat work: iteration, quantifiers, functions (recursion), filters (a filter
// inside a filter is quadratic in the list).
const LOOPING = new Set(['ForExpression', 'QuantifiedExpression', 'FunctionDefinition', 'FilterExpression']);

/**
 * Whether evaluating the parsed text can take long whatever its size: it iterates, defines or calls
 * a FEEL function (other than a builtin of linear cost), filters a list, or does not parse cleanly.
 * Everything else runs in time about linear in the text and its input, and skips the budget's cost.
 */
export function mayRunLong(tree: FeelTree, text: string): boolean {
  let long = false;
  tree.iterate({
    enter(node) {
      if (long) return false;
      if (node.type.isError || LOOPING.has(node.name)) {
        long = true;
        return false;
      }
      if (node.name === 'FunctionInvocation') {
        const callee = node.node.firstChild;
        const name = callee === null ? '' : text.slice(callee.from, callee.to).replace(/\s+/g, ' ').trim();
        if (!LINEAR_BUILTINS.has(name)) long = true;
      }
      return undefined;
    },
  });
  return long;
}

const MAX_REMEMBERED = 10_000;
const remembered = new Map<string, boolean>();

/**
 * mayRunLong for a FEEL expression or unary tests text, parsed without names in scope, remembered
 * for the texts seen most recently (the engine evaluates the same conditions and mappings again and
 * again).
 */
export function textMayRunLong(text: string, mode: 'expression' | 'unaryTests' = 'expression'): boolean {
  const key = `${mode === 'expression' ? 'e' : 'u'}${text}`;
  const known = remembered.get(key);
  if (known !== undefined) return known;
  let long: boolean;
  try {
    const tree =
      mode === 'expression' ? parseExpression(text, {}, undefined) : parseUnaryTests(text, {}, undefined);
    long = mayRunLong(tree, text);
  } catch {
    long = true;
  }
  if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value as string);
  remembered.set(key, long);
  return long;
}
