import { compileExpression, type CompiledExpression, type Scope } from './feel-expression.js';
import { compileUnaryTests, type CompiledUnaryTests } from './unary-tests.js';
import { aggregate, deepEqual, priorityOf } from './hit-policy.js';
import { evaluationError, runFeel, type CompileEnv, type Evaluator, type Run } from './runtime.js';
import type { DecisionResultEntry, DmnDecisionTable } from './types.js';

interface CompiledRule {
  id: string | null;
  index: number;
  tests: CompiledUnaryTests[];
  outputs: CompiledExpression[];
}

/** What a decision table evaluated to: its value, and its result entries (see DecisionResult.resultList). */
export interface TableOutcome {
  value: unknown;
  entries: DecisionResultEntry[];
}

/** A compiled decision table that also reports its result entries. */
export type TableEvaluator = (vars: Scope, run: Run) => TableOutcome;

/**
 * Compiles a decision table. Input expressions are evaluated once per evaluation, rules are tested in
 * order (a rule stops at its first failing test), and the hit policy turns the matched rules into the
 * result: the value itself for a single output, a context per match for several outputs.
 */
export function compileDecisionTable(table: DmnDecisionTable, env: CompileEnv): Evaluator {
  const evaluate = compileDecisionTableEntries(table, env);
  return (vars, run) => evaluate(vars, run).value;
}

/**
 * Compiles a decision table like compileDecisionTable, also giving its result entries: one per rule the
 * hit policy kept (output name → value), the default outputs when none matched, or one entry with the
 * aggregated value of a COLLECT aggregation.
 */
export function compileDecisionTableEntries(table: DmnDecisionTable, env: CompileEnv): TableEvaluator {
  const { owner } = env;
  const tableSite = { elementId: table.id };
  const inputs = table.inputs.map((input) => ({
    id: input.id,
    label: input.label ?? input.expression,
    expression: compileExpression(input.expression, env.scope),
    allowed: input.inputValues === null ? null : compileUnaryTests(input.inputValues),
  }));
  const rules: CompiledRule[] = table.rules.map((rule, index) => ({
    id: rule.id,
    index,
    // An empty cell (`<text></text>`, as Camunda Modeler saves a cell left blank) matches any
    // input, as in Camunda: it is `-`.
    tests: rule.inputEntries.map((text) => compileUnaryTests(text.trim() === '' ? '-' : text)),
    outputs: rule.outputEntries.map((text) => compileExpression(text, env.scope)),
  }));
  const outputs = table.outputs.map((output, i) => ({
    name: output.name ?? (table.outputs.length === 1 ? (table.outputLabel ?? 'result') : `output${i + 1}`),
    defaultValue: output.defaultOutput === null ? null : compileExpression(output.defaultOutput, env.scope),
    priorities:
      output.outputValues === null
        ? null
        : splitUnaryTests(output.outputValues).map((t) => compileUnaryTests(t)),
  }));
  const single = outputs.length === 1;
  const aggregateName = outputs[0]?.name ?? 'result';
  const { hitPolicy, aggregation } = table;

  // A row is the output values of one rule (or the defaults), in output order.
  const rowOf = (rule: CompiledRule, vars: Scope, run: Run): unknown[] =>
    rule.outputs.map((expression) =>
      runFeel(expression, vars, run, owner, { ruleId: rule.id, ruleIndex: rule.index }, 'output entry'),
    );
  const entryOf = (row: unknown[]): DecisionResultEntry => {
    const context: DecisionResultEntry = {};
    outputs.forEach((output, i) => (context[output.name] = row[i] ?? null));
    return context;
  };
  const valueOf = (row: unknown[]): unknown => (single ? (row[0] ?? null) : entryOf(row));
  const outcomeOf = (row: unknown[]): TableOutcome => ({ value: valueOf(row), entries: [entryOf(row)] });

  const defaultRow = (vars: Scope, run: Run): unknown[] | null => {
    if (outputs.every((o) => o.defaultValue === null)) return null;
    return outputs.map((o) =>
      o.defaultValue === null ? null : runFeel(o.defaultValue, vars, run, owner, tableSite, 'default output'),
    );
  };

  const priorityKey = (value: unknown): number[] =>
    outputs.map((output) => {
      const v = single ? value : (value as Record<string, unknown>)[output.name];
      return output.priorities === null ? 0 : priorityOf(v, output.priorities);
    });

  return (vars, run) => {
    const values = inputs.map((input) => {
      const value = runFeel(input.expression, vars, run, owner, { elementId: input.id }, 'input expression');
      if (input.allowed !== null && value !== null && !input.allowed.test(value, vars)) {
        if (run.strict) {
          throw evaluationError(
            owner,
            { elementId: input.id },
            `input '${input.label}' is not one of its input values`,
          );
        }
        return NOT_ALLOWED;
      }
      return value;
    });
    if (values.includes(NOT_ALLOWED)) return { value: null, entries: [] };

    const matched: CompiledRule[] = [];
    for (const rule of rules) {
      let hit = true;
      for (let i = 0; i < rule.tests.length; i++) {
        if (!(rule.tests[i] as CompiledUnaryTests).test(values[i], vars)) {
          hit = false;
          break;
        }
      }
      if (hit) {
        matched.push(rule);
        if (hitPolicy === 'FIRST') break;
      }
    }
    const audit = (list: CompiledRule[]): void => {
      for (const rule of list) {
        run.matched.push({
          decisionId: owner.id,
          decisionName: owner.name,
          ruleId: rule.id,
          ruleIndex: rule.index,
        });
      }
    };

    if (hitPolicy === 'COLLECT' || hitPolicy === 'RULE ORDER' || hitPolicy === 'OUTPUT ORDER') {
      audit(matched);
      let rows = matched.map((rule) => rowOf(rule, vars, run));
      if (hitPolicy === 'OUTPUT ORDER') rows = sortByPriority(rows, (row) => priorityKey(valueOf(row)));
      if (hitPolicy === 'COLLECT' && aggregation !== null) {
        const outcome = aggregate(aggregation, rows.map(valueOf));
        if (outcome.error !== null) {
          if (run.strict) throw evaluationError(owner, tableSite, outcome.error);
          return { value: null, entries: [{ [aggregateName]: null }] };
        }
        return { value: outcome.value, entries: [{ [aggregateName]: outcome.value }] };
      }
      if (matched.length === 0) {
        const row = defaultRow(vars, run);
        return row === null
          ? { value: [], entries: [] }
          : { value: valueOf(row) ?? [], entries: [entryOf(row)] };
      }
      return { value: rows.map(valueOf), entries: rows.map(entryOf) };
    }

    if (matched.length === 0) {
      const row = defaultRow(vars, run);
      return row === null ? { value: null, entries: [] } : outcomeOf(row);
    }
    const first = matched[0] as CompiledRule;
    if (hitPolicy === 'UNIQUE' && matched.length > 1) {
      throw evaluationError(
        owner,
        { ruleId: first.id, ruleIndex: first.index },
        `hit policy UNIQUE but ${matched.length} rules matched (rules ${matched.map((r) => r.index + 1).join(', ')})`,
      );
    }
    if (hitPolicy === 'ANY') {
      const rows = matched.map((rule) => rowOf(rule, vars, run));
      const results = rows.map(valueOf);
      const disagreeing = results.findIndex((r) => !deepEqual(r, results[0]));
      if (disagreeing > 0) {
        const rule = matched[disagreeing] as CompiledRule;
        throw evaluationError(
          owner,
          { ruleId: rule.id, ruleIndex: rule.index },
          `hit policy ANY but matched rules ${first.index + 1} and ${rule.index + 1} give different outputs`,
        );
      }
      audit(matched);
      return { value: results[0], entries: [entryOf(rows[0] as unknown[])] };
    }
    if (hitPolicy === 'PRIORITY') {
      const rows = matched.map((rule) => rowOf(rule, vars, run));
      const order = sortByPriority(
        rows.map((row, i) => ({ row, i })),
        (entry) => priorityKey(valueOf(entry.row)),
      );
      const best = order[0] as { row: unknown[]; i: number };
      audit([matched[best.i] as CompiledRule]);
      return outcomeOf(best.row);
    }
    // UNIQUE with one match, FIRST
    audit([first]);
    return outcomeOf(rowOf(first, vars, run));
  };
}

const NOT_ALLOWED = Symbol('input value not allowed');

function sortByPriority<T>(items: T[], key: (item: T) => number[]): T[] {
  const keyed = items.map((item, i) => ({ item, i, key: key(item) }));
  keyed.sort((a, b) => {
    for (let k = 0; k < a.key.length; k++) {
      const d = (a.key[k] ?? 0) - (b.key[k] ?? 0);
      if (d !== 0) return d;
    }
    return a.i - b.i;
  });
  return keyed.map((k) => k.item);
}

/** Splits a comma-separated unary tests text (e.g. output values) into its tests, outside strings and brackets. */
export function splitUnaryTests(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let inString = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts.filter((p) => p !== '');
}
