import { parseExpression, parseUnaryTests } from 'feelin';
import { mayRunLong } from '../feel/index.js';
import { namesMentioned } from './feel-names.js';

/** What a static look at a FEEL text found: its first syntax error and the variable names it reads. */
export interface FeelAnalysis {
  syntaxError: string | null;
  names: string[];
  /** The names of the scope the text may mention (those the parser was given). */
  mentioned: readonly string[];
  /** Whether evaluating it can take long (it loops, filters or calls FEEL functions): see mayRunLong. */
  mayRunLong: boolean;
}

/** A map of names to undefined, which feelin's parser uses to recognise names with spaces or operators. */
export function parseContextOf(scope: readonly string[]): Record<string, undefined> {
  const context: Record<string, undefined> = {};
  for (const name of scope) context[name] = undefined;
  return context;
}

// Deploying parses each text twice (the model check, then the compiler) and a decision table repeats
// many cells: a parse costs 0.1–0.5 ms, so the analyses of recent short texts are kept.
const MAX_REMEMBERED = 10_000;
const MAX_REMEMBERED_LENGTH = 1000;
const remembered = new Map<string, FeelAnalysis>();

/**
 * Parses a FEEL expression or unary tests text with the names in scope; reports the first syntax error
 * (with its position) and lists the variable names the text reads.
 */
export function analyzeFeel(
  text: string,
  mode: 'expression' | 'unaryTests',
  scope: readonly string[],
): FeelAnalysis {
  if (text.trim() === '') {
    return {
      syntaxError: mode === 'expression' ? 'the expression is empty' : null,
      names: [],
      mentioned: [],
      mayRunLong: false,
    };
  }
  const mentioned = namesMentioned(text, scope);
  const key = `${mode === 'expression' ? 'e' : 'u'}${mentioned.join('\u0001')}\u0000${text}`;
  const known = remembered.get(key);
  if (known !== undefined) return known;
  const context = parseContextOf(mentioned);
  const tree =
    mode === 'expression'
      ? parseExpression(text, context, undefined)
      : parseUnaryTests(text, context, undefined);
  let syntaxError: string | null = null;
  const names = new Set<string>();
  tree.iterate({
    enter(node) {
      if (node.type.isError && syntaxError === null) {
        const near = text.slice(Math.max(0, node.from - 10), node.to + 10).trim();
        syntaxError = `FEEL syntax error at position ${node.from}${near ? ` near '${near}'` : ''}`;
      }
      if (node.name === 'VariableName') {
        names.add(text.slice(node.from, node.to).replace(/\s+/g, ' ').trim());
      }
      return undefined;
    },
  });
  const analysis: FeelAnalysis = {
    syntaxError,
    names: [...names].filter((n) => n !== '' && n !== '?'),
    mentioned,
    mayRunLong: mayRunLong(tree, text),
  };
  if (text.length > MAX_REMEMBERED_LENGTH) return analysis;
  if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value as string);
  remembered.set(key, analysis);
  return analysis;
}
