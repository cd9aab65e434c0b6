/** Evaluates parsed expressions over a context: identifiers, property access, calls and operators. */
import type { JuelNode, JuelPart } from './ast.js';
import { describe, doubleToLong, toBoolean, toText } from './coercion.js';
import type { JuelContext } from './context.js';
import { JuelError } from './errors.js';
import { JUEL_FUNCTIONS } from './functions.js';
import { hostProperty } from './host-members.js';
import { ExecutionObject, TaskObject } from './host-objects.js';
import type { MethodEnv } from './method-table.js';
import { tooLong } from './method-table.js';
import { invokeMethod } from './methods.js';
import type { ArithmeticOperator } from './operators.js';
import { arithmetic, compare, equals, isEmpty, negate } from './operators.js';
import type { JuelValue } from './values.js';
import { fromJson, isList, isMap, mapEntry, typeName } from './values.js';

/** The identifiers the context resolves before variables, as Camunda's variable resolver does. */
export const BUILT_IN_IDENTIFIERS: readonly string[] = ['execution', 'task', 'authenticatedUserId'];

/** Evaluates a composite text: one lone expression keeps its type, anything else is a String. */
export function evaluateParts(parts: readonly JuelPart[], text: string, env: MethodEnv): JuelValue {
  const only = parts.length === 1 ? parts[0] : undefined;
  if (only !== undefined && typeof only !== 'string') return evaluate(only.node, text, env);
  let out = '';
  for (const part of parts) {
    out += typeof part === 'string' ? part : toText(evaluate(part.node, text, env));
    if (out.length > env.maxStringLength) throw tooLong(env.maxStringLength);
  }
  return out;
}

function evaluate(node: JuelNode, text: string, env: MethodEnv): JuelValue {
  const at = <T>(apply: () => T): T => {
    try {
      return apply();
    } catch (error) {
      if (error instanceof JuelError && error.position < 0) throw new JuelError(error.message, node.pos);
      throw error;
    }
  };
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'identifier':
      return resolve(node.name, node.pos, text, env.context);
    case 'access': {
      const base = evaluate(node.base, text, env);
      if (base === null) return null;
      const key = evaluate(node.key, text, env);
      if (key === null) return null;
      return at(() => access(base, key));
    }
    case 'method': {
      const base = evaluate(node.base, text, env);
      const args = node.args.map((a) => evaluate(a, text, env));
      return at(() => invokeMethod(base, node.name, args, env));
    }
    case 'function': {
      const fn = JUEL_FUNCTIONS[node.name]!;
      return at(() => fn(env.context));
    }
    case 'unary': {
      const operand = evaluate(node.operand, text, env);
      return at(() =>
        node.op === '-' ? negate(operand) : node.op === '!' ? !toBoolean(operand) : isEmpty(operand),
      );
    }
    case 'conditional': {
      const test = evaluate(node.test, text, env);
      return at(() => toBoolean(test)) ? evaluate(node.then, text, env) : evaluate(node.otherwise, text, env);
    }
    case 'binary': {
      const left = evaluate(node.left, text, env);
      if (node.op === '&&' || node.op === '||') {
        const first = at(() => toBoolean(left));
        if (node.op === '&&' ? !first : first) return first;
        const right = evaluate(node.right, text, env);
        return at(() => toBoolean(right));
      }
      const right = evaluate(node.right, text, env);
      return at(() => {
        switch (node.op) {
          case '==':
            return equals(left, right);
          case '!=':
            return !equals(left, right);
          case '<':
          case '>':
          case '<=':
          case '>=':
            return compare(node.op, left, right);
          default:
            return arithmetic(node.op as ArithmeticOperator, left, right);
        }
      });
    }
  }
}

function resolve(name: string, pos: number, text: string, context: JuelContext): JuelValue {
  if (name === 'execution' && context.execution !== undefined)
    return new ExecutionObject(context.execution, context);
  if (name === 'task' && context.task !== undefined) return new TaskObject(context.task, context);
  if (name === 'authenticatedUserId') return context.currentUser ?? null;
  const value = mapEntry(context.variables, name);
  if (value === undefined) {
    throw new JuelError(
      `Unknown property used in expression: ${text}. Cause: Cannot resolve identifier '${name}'`,
      pos,
    );
  }
  return fromJson(value);
}

/** `base[key]` and `base.key`: a Map entry (null when absent), a List element (null out of range). */
function access(base: JuelValue, key: JuelValue): JuelValue {
  if (isMap(base)) return fromJson(mapEntry(base, toText(key)));
  if (isList(base)) {
    const index = listIndex(key);
    return index >= 0 && index < base.length ? fromJson(base[index]) : null;
  }
  if (base instanceof ExecutionObject || base instanceof TaskObject) return hostProperty(base, toText(key));
  if (base instanceof Date && key === 'time') return BigInt(base.getTime());
  throw new JuelError(`Property '${toText(key)}' not found on type ${typeName(base)}`);
}

// The List resolver's index: a number, or a String holding an integer.
function listIndex(key: JuelValue): number {
  if (typeof key === 'bigint') return Number(BigInt.asIntN(32, key));
  if (typeof key === 'number') return Number(BigInt.asIntN(32, doubleToLong(key)));
  if (typeof key === 'string' && /^[+-]?\d+$/.test(key)) return Number(BigInt.asIntN(32, BigInt(key)));
  throw new JuelError(`Cannot use ${describe(key)} as a List index`);
}
