import { FeelFunction, isFunction } from 'feelin';
import { compileDecisionTable } from './decision-table.js';
import { compileExpression } from './feel-expression.js';
import { applyType, evaluationError, runFeel, type CompileEnv, type Evaluator } from './runtime.js';
import type { DmnExpression, DmnFunctionDefinition } from './types.js';
import { compileIteration } from './boxed-iterators.js';

const INSTANCE_OF = /\binstance\s+of\b/;

/** Compiles any boxed expression into an evaluator over the variables in scope. */
export function compileBoxed(expression: DmnExpression, env: CompileEnv): Evaluator {
  const site = { elementId: expression.id };
  switch (expression.kind) {
    case 'literal': {
      const compiled = compileExpression(expression.text, env.scope);
      // `instance of` an item definition finds the type by its name; variables still win.
      if (INSTANCE_OF.test(expression.text) && Object.keys(env.types.instanceTypes).length > 0) {
        const types = env.types.instanceTypes;
        return (vars, run) => runFeel(compiled, { ...types, ...vars }, run, env.owner, site, 'expression');
      }
      return (vars, run) => runFeel(compiled, vars, run, env.owner, site, 'expression');
    }
    case 'decisionTable':
      return compileDecisionTable(expression, env);
    case 'context': {
      const scope = [...env.scope];
      const entries = expression.entries.map((entry) => {
        const evaluator = compileBoxed(entry.value, { ...env, scope: [...scope] });
        if (entry.name !== null) scope.push(entry.name);
        return { name: entry.name, typeRef: entry.typeRef, evaluator, site: { elementId: entry.value.id } };
      });
      return (vars, run) => {
        const local: Record<string, unknown> = { ...vars };
        const result: Record<string, unknown> = {};
        for (const entry of entries) {
          let value = entry.evaluator(local, run);
          if (entry.name === null) return value;
          value = applyType(value, entry.typeRef, env, run, entry.site, `context entry '${entry.name}'`);
          local[entry.name] = value;
          result[entry.name] = value;
        }
        return result;
      };
    }
    case 'list': {
      const items = expression.items.map((item) => compileBoxed(item, env));
      return (vars, run) => items.map((item) => item(vars, run));
    }
    case 'relation': {
      const { columns } = expression;
      const rows = expression.rows.map((row) => row.map((cell) => compileBoxed(cell, env)));
      return (vars, run) =>
        rows.map((row) => {
          const record: Record<string, unknown> = {};
          columns.forEach((column, i) => {
            const cell = row[i];
            record[column] = cell === undefined ? null : cell(vars, run);
          });
          return record;
        });
    }
    case 'invocation': {
      const callee = compileExpression(expression.callee, env.scope);
      const bindings = expression.bindings.map((b) => ({
        name: b.name,
        value: b.value === null ? null : compileBoxed(b.value, env),
      }));
      return (vars, run) => {
        const fn = runFeel(callee, vars, run, env.owner, site, 'invoked function');
        if (!isFunction(fn)) {
          if (run.strict) throw evaluationError(env.owner, site, `'${expression.callee}' is not a function`);
          return null;
        }
        const args: Record<string, unknown> = {};
        for (const b of bindings) args[b.name] = b.value === null ? null : b.value(vars, run);
        const unknown = Object.keys(args).filter((name) => !fn.parameterNames.includes(name));
        if (unknown.length > 0) {
          if (run.strict) {
            throw evaluationError(
              env.owner,
              site,
              `'${expression.callee}' has no parameter ${unknown.join(', ')}`,
            );
          }
          return null;
        }
        return callFunction(
          fn,
          fn.parameterNames.map((name) => args[name] ?? null),
        );
      };
    }
    case 'function':
      return compileFunction(expression, env);
    case 'conditional':
    case 'filter':
    case 'for':
    case 'some':
    case 'every':
      return compileIteration(expression, env, compileBoxed);
  }
}

/**
 * Compiles a FEEL function definition into an evaluator that returns a FEEL function value closing over
 * the variables in scope; feelin can call it like any FEEL function.
 */
export function compileFunction(definition: DmnFunctionDefinition, env: CompileEnv): Evaluator {
  const names = definition.parameters.map((p) => p.name);
  const body =
    definition.body === null
      ? null
      : compileBoxed(definition.body, { ...env, scope: [...env.scope, ...names] });
  return (vars, run) =>
    new FeelFunction((...args: unknown[]) => {
      if (body === null) return null;
      const local: Record<string, unknown> = { ...vars };
      definition.parameters.forEach((p, i) => {
        local[p.name] = applyType(args[i] ?? null, p.typeRef, env, run, {}, `parameter '${p.name}'`);
      });
      return body(local, run);
    }, names);
}

/** Calls a FEEL function value with positional arguments. */
export function callFunction(fn: FeelFunction, args: unknown[]): unknown {
  const result = fn.fn(...args) as unknown;
  return result === undefined ? null : result;
}
