import { Environment } from '../../lib/cel-engine/index.js';
import { compileRe2, Re2PatternError } from '../../lib/re2/re2-pattern.js';

/**
 * CEL's `matches` takes an RE2 pattern (cel-spec), but the CEL library runs it on JavaScript's
 * backtracking engine, where `^(a+)+$` on a few dozen characters blocks the process for seconds,
 * and it does not let a built-in be replaced. So a rule's `matches` calls (`s.matches(p)` and
 * `matches(s, p)`) are rewritten, from the parsed syntax tree, into calls of `re2_matches`, which
 * runs on RE2 in linear time.
 */
export const re2MatchesFunction = 're2_matches';

interface SyntaxNode {
  op: string;
  args: unknown;
  start: number;
  end: number;
}

const parser = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });

function isNode(value: unknown): value is SyntaxNode {
  return typeof value === 'object' && value !== null && 'op' in value && 'start' in value && 'end' in value;
}

function childrenOf(value: unknown, into: SyntaxNode[] = []): SyntaxNode[] {
  if (isNode(value)) into.push(value);
  else if (Array.isArray(value)) for (const item of value) childrenOf(item, into);
  return into;
}

function rewrite(text: string, node: SyntaxNode): string {
  const args = Array.isArray(node.args) ? (node.args as unknown[]) : [];
  if (node.op === 'rcall' && args[0] === 'matches' && isNode(args[1]) && Array.isArray(args[2])) {
    const [pattern] = args[2] as unknown[];
    if (args[2].length === 1 && isNode(pattern))
      return `${re2MatchesFunction}(${rewrite(text, args[1])}, ${rewrite(text, pattern)})`;
  }
  if (node.op === 'call' && args[0] === 'matches' && Array.isArray(args[1]) && args[1].length === 2) {
    const [subject, pattern] = args[1] as unknown[];
    if (isNode(subject) && isNode(pattern))
      return `${re2MatchesFunction}(${rewrite(text, subject)}, ${rewrite(text, pattern)})`;
  }
  // Any other node: its own text with its children's rewrites put in place.
  const children = childrenOf(node.args).sort((a, b) => a.start - b.start);
  let out = '';
  let at = node.start;
  for (const child of children) {
    if (child.start < at) continue;
    out += text.slice(at, child.start) + rewrite(text, child);
    at = child.end;
  }
  return out + text.slice(at, node.end);
}

/** `condition` with its `matches` calls made `re2_matches` calls; unchanged when it does not parse. */
export function withRe2Matches(condition: string): string {
  if (!condition.includes('matches')) return condition;
  let ast: unknown;
  try {
    ast = (parser.parse(condition) as unknown as { ast: unknown }).ast;
  } catch {
    return condition;
  }
  if (!isNode(ast)) return condition;
  return condition.slice(0, ast.start) + rewrite(condition, ast) + condition.slice(ast.end);
}

/** Adds `re2_matches(string, string): bool` to an environment; a pattern RE2 refuses is an error. */
export function registerRe2Matches(env: Environment): Environment {
  return env.registerFunction(
    `${re2MatchesFunction}(string, string): bool`,
    (subject: string, pattern: string) => {
      try {
        return compileRe2(pattern).test(subject);
      } catch (error) {
        if (error instanceof Re2PatternError)
          throw new Error(`invalid regular expression: ${error.reason}`, { cause: error });
        throw error;
      }
    },
  );
}
