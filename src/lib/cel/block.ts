import type { Environment } from '../cel-engine/index.js';
import { replaceInCode } from './source-scan.js';

/** The variable a `cel.index(n)` slot of `cel.block` is bound to. */
function slotName(index: number | string): string {
  return `__cel_index_${index}__`;
}

/**
 * `source` with the references of CEL's block extension made plain identifiers:
 * `cel.index(n)` (a slot of the enclosing `cel.block`) and `cel.iterVar(n, m)` / `cel.accuVar(n, m)`
 * (the variables of an optimised comprehension). cel-js parses a macro's variable only as an
 * identifier, so the call form has to go before parsing.
 */
export function withBlockReferences(source: string): string {
  if (!source.includes('cel')) return source;
  return replaceInCode(source, (code) =>
    code
      .replace(/(?<!\.\s*)(?<!\w)cel\s*\.\s*index\s*\(\s*(\d+)\s*\)/g, (_, index: string) => slotName(index))
      .replace(
        /(?<!\.\s*)(?<!\w)cel\s*\.\s*(iterVar|accuVar)\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)/g,
        (_, kind: string, depth: string, index: string) => `__cel_${kind}_${depth}_${index}__`,
      ),
  );
}

interface SyntaxNode {
  op: string;
  args: unknown;
}
interface Scope {
  forkWithVariable(name: string, type: unknown): Scope;
  setIterValue(value: unknown, evaluator: unknown): Scope;
}
interface Checker {
  check(node: SyntaxNode, scope: Scope): unknown;
}
interface Evaluator {
  run(node: SyntaxNode, scope: Scope): unknown;
}

/**
 * Registers `cel.block([e0, e1, …], body)` of CEL's block extension: slot `i` holds `ei`, which may
 * read the slots before it, and `body` reads them all (as `cel.index(i)`, see `withBlockReferences`).
 * Slots are evaluated in order, each once.
 */
export function registerBlock(env: Environment): Environment {
  return env.registerFunction('CelNamespace.block(ast, ast): dyn', (({ args }: { args: SyntaxNode[] }) => {
    const [slots, body] = args as [SyntaxNode, SyntaxNode];
    if (slots.op !== 'list' || !Array.isArray(slots.args))
      throw new Error('cel.block: the first argument must be a list literal');
    const expressions = slots.args as SyntaxNode[];
    const types: unknown[] = [];
    return {
      async: false,
      typeCheck(checker: Checker, _: unknown, scope: Scope) {
        expressions.forEach((expression, index) => {
          const type = checker.check(expression, scope);
          types[index] = type;
          scope = scope.forkWithVariable(slotName(index), type);
        });
        return checker.check(body, scope);
      },
      evaluate(evaluator: Evaluator, _: unknown, scope: Scope) {
        expressions.forEach((expression, index) => {
          const value = evaluator.run(expression, scope);
          scope = scope.forkWithVariable(slotName(index), types[index]).setIterValue(value, evaluator);
        });
        return evaluator.run(body, scope);
      },
    };
  }) as never);
}
