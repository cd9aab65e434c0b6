import { Optional, subMillisecondNanos, type Environment } from '../cel-engine/index.js';
import { celEquals, isDuration, isUint, mapEntries, type CelValue } from './cel-values.js';

/** True for a CEL zero value: null, false, 0, 0.0, 0u, "", b"", [], {}, a zero duration, the epoch. */
export function isZeroValue(value: CelValue): boolean {
  if (value === null || value === false || value === 0n || value === 0 || value === '') return true;
  if (isUint(value)) return value.value === 0n;
  if (value instanceof Uint8Array || Array.isArray(value)) return value.length === 0;
  if (value instanceof Date) return value.getTime() === 0 && subMillisecondNanos(value) === 0;
  if (isDuration(value)) return value.seconds === 0n && value.nanos === 0;
  if (value instanceof Optional) return false;
  return typeof value === 'object' && mapEntries(value).length === 0;
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
  check(node: SyntaxNode, scope: Scope): { kind: string };
  getType(name: string): unknown;
  registry: { getOptionalType?(inner: unknown): unknown };
}
interface Evaluator {
  run(node: SyntaxNode, scope: Scope): unknown;
}

/** `opt.optMap(x, e)` (`optional.of(e)`) and `opt.optFlatMap(x, e)` (`e`, an optional), `x` the value. */
function optionalMap(name: string, flat: boolean) {
  return ({ args, receiver }: { args: SyntaxNode[]; receiver: SyntaxNode }) => {
    const [variable, body] = args as [SyntaxNode, SyntaxNode];
    if (variable.op !== 'id' || typeof variable.args !== 'string')
      throw new Error(`${name}: the variable must be a simple identifier`);
    let dyn: unknown;
    return {
      async: false,
      typeCheck(checker: Checker, _: unknown, scope: Scope) {
        checker.check(receiver, scope);
        dyn = checker.getType('dyn');
        checker.check(body, scope.forkWithVariable(variable.args as string, dyn));
        return checker.getType('dyn');
      },
      evaluate(evaluator: Evaluator, _: unknown, scope: Scope) {
        const optional = evaluator.run(receiver, scope);
        if (!(optional instanceof Optional)) throw new Error(`${name}: the receiver must be an optional`);
        if (!optional.hasValue()) return Optional.none();
        const inner = scope
          .forkWithVariable(variable.args as string, dyn)
          .setIterValue(optional.value(), evaluator);
        const result = evaluator.run(body, inner);
        if (!flat) return Optional.of(result);
        if (!(result instanceof Optional)) throw new Error(`${name}: the expression must return an optional`);
        return result;
      },
    };
  };
}

/**
 * Registers the parts of CEL's optional types (cel-spec optionals) that cel-js lacks:
 * `optional.ofNonZeroValue`, `optMap`, `optFlatMap` and `==` between optionals (cel-js derives `!=`).
 */
export function registerOptionalExtensions(env: Environment): Environment {
  if (!env.opts.enableOptionalTypes) return env;
  return env
    .registerFunction(
      'OptionalNamespace.ofNonZeroValue(dyn): optional<dyn>',
      (_: unknown, value: CelValue) => (isZeroValue(value) ? Optional.none() : Optional.of(value)),
    )
    .registerFunction('optional.optMap(ast, ast): dyn', optionalMap('optMap', false) as never)
    .registerFunction('optional.optFlatMap(ast, ast): dyn', optionalMap('optFlatMap', true) as never)
    .registerOperator('optional<dyn> == optional<dyn>', (a: unknown, b: unknown) => celEquals(a, b));
}
