import { FeelRange } from 'feelin';
import type { CompileEnv, Evaluator } from './runtime.js';
import type { DmnConditional, DmnExpression, DmnFilter, DmnIterator } from './types.js';
import { isPlainObject } from './item-types.js';

type CompileBoxed = (expression: DmnExpression, env: CompileEnv) => Evaluator;

/**
 * The items an iterator or filter goes over (DMN 1.5 10.3.2.9.4, 10.3.2.14): a list, the integers or
 * dates of a range, or a single value as the list of that value; null gives null.
 */
function itemsOf(value: unknown): unknown[] | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value as unknown[];
  if (value instanceof FeelRange) return value.map<unknown>((v: unknown) => v);
  return [value];
}

/**
 * Compiles the boxed expressions of DMN 1.4/1.5 that branch or iterate: conditional (the `then` part
 * when `if` is true, else the `else` part), filter (the items for which `match` is true, with `item`
 * and, for a context item, its entries in scope), for (each item through `return`, with `partial` the
 * results so far), some and every (whether `satisfies` is true for some or every item; null as soon
 * as it is not a boolean for one).
 */
export function compileIteration(
  expression: DmnConditional | DmnFilter | DmnIterator,
  env: CompileEnv,
  compileBoxed: CompileBoxed,
): Evaluator {
  if (expression.kind === 'conditional') {
    const condition = compileBoxed(expression.condition, env);
    const then = compileBoxed(expression.then, env);
    const otherwise = compileBoxed(expression.otherwise, env);
    return (vars, run) => (condition(vars, run) === true ? then(vars, run) : otherwise(vars, run));
  }
  const source = compileBoxed(expression.source, env);
  if (expression.kind === 'filter') {
    const match = compileBoxed(expression.match, { ...env, scope: [...env.scope, 'item'] });
    return (vars, run) => {
      const items = itemsOf(source(vars, run));
      if (items === null) return null;
      return items.filter((item) => {
        const local = isPlainObject(item) ? { ...vars, ...item, item } : { ...vars, item };
        return match(local, run) === true;
      });
    };
  }
  const { variable, kind } = expression;
  const body = compileBoxed(expression.body, { ...env, scope: [...env.scope, variable, 'partial'] });
  if (kind === 'for') {
    return (vars, run) => {
      const items = itemsOf(source(vars, run));
      if (items === null) return null;
      const partial: unknown[] = [];
      for (const item of items) partial.push(body({ ...vars, [variable]: item, partial: [...partial] }, run));
      return partial;
    };
  }
  return (vars, run) => {
    const items = itemsOf(source(vars, run));
    if (items === null) return null;
    let found = false;
    for (const item of items) {
      const satisfied = body({ ...vars, [variable]: item }, run);
      if (typeof satisfied !== 'boolean') return null;
      if (satisfied === (kind === 'some')) found = true;
    }
    return kind === 'some' ? found : !found;
  };
}
