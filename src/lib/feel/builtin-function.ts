import { evaluate, FeelFunction } from 'feelin';

/** A builtin as feelin keeps it: a JavaScript function taking positional arguments, with its names. */
export type RawBuiltin = ((...args: unknown[]) => unknown) & { $args?: string[] };

/**
 * feelin's own implementation of a builtin (`time`, `round up`), found the way a FEEL text finds it
 * (a context entry holding the function value), so that an override can delegate what feelin gets
 * right. A name the parser does not read as a value (`date and time` outside a call, where `and` is
 * the operator) is reached by evaluating a call to it instead, with the given parameter names.
 */
export function feelinBuiltin(name: string, parameterNames: string[] = []): RawBuiltin {
  const found = (evaluate(`{f: ${name}}.f`, {}).value ?? null) as unknown;
  if (typeof found === 'function') return found as RawBuiltin;
  if (parameterNames.length === 0) throw new Error(`feelin has no builtin '${name}'`);
  const call = (...args: unknown[]): unknown => {
    const given = args.slice(0, parameterNames.length);
    while (given.length > 0 && given[given.length - 1] === undefined) given.pop();
    const names = given.map((_, i) => `a${i}`);
    const context = Object.fromEntries(given.map((a, i) => [`a${i}`, a ?? null]));
    return evaluate(`${name}(${names.join(', ')})`, context).value;
  };
  return Object.assign(call, { $args: parameterNames });
}

/** An override with the parameter names of the builtin it replaces (named invocation maps onto them). */
export function override(original: RawBuiltin, fn: (...args: unknown[]) => unknown): FeelFunction {
  return new FeelFunction(fn, original.$args ?? []);
}

// feelin exports no way to make the "invalid arguments" signal its builtins return (a warning and a
// null result), but a FeelFunction called with too many arguments returns one: its class is taken
// from there. test/workflow/feel/regex-functions.test.ts notices if a feelin upgrade changes this.
const failureClass = (new FeelFunction(() => null, []).invoke([null]) as object).constructor as new (
  warning: string,
  template: string,
  values: Record<string, unknown>,
) => object;

/**
 * What a builtin returns for arguments it cannot take: feelin turns it into a null result and a
 * warning with this message (`{name}` placeholders are filled from `values`).
 */
export function invalidArguments(template: string, values: Record<string, unknown> = {}): object {
  return new failureClass('INVALID_ARGUMENTS', template, values);
}
