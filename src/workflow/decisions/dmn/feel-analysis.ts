import { parseExpression, parseUnaryTests } from 'feelin';

/** What a static look at a FEEL text found: its first syntax error and the variable names it reads. */
export interface FeelAnalysis {
  syntaxError: string | null;
  names: string[];
}

/** A map of names to undefined, which feelin's parser uses to recognise names with spaces or operators. */
export function parseContextOf(scope: readonly string[]): Record<string, undefined> {
  const context: Record<string, undefined> = {};
  for (const name of scope) context[name] = undefined;
  return context;
}

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
    return { syntaxError: mode === 'expression' ? 'the expression is empty' : null, names: [] };
  }
  const context = parseContextOf(scope);
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
  return { syntaxError, names: [...names].filter((n) => n !== '' && n !== '?') };
}
