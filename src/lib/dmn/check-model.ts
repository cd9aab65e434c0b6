import { expressionLengthProblem, type DmnLimits } from './dmn-limits.js';
import { analyzeFeel } from './feel-analysis.js';
import type { DmnExpression, DmnItemDefinition, DmnModel, DmnProblem } from './types.js';

/** What checking a model found besides its problems. */
export interface ModelCheck {
  /**
   * Whether evaluating some decision can take long: a FEEL text loops, filters or calls a function,
   * or a boxed invocation or function definition calls one. Such models are evaluated within the
   * FEEL time budget.
   */
  mayRunLong: boolean;
}

/**
 * Checks a parsed model as a whole: unique ids and names, references that resolve to the right kind of
 * element, no circular requirements, and FEEL syntax of every expression and unary test (and, given
 * limits, the length of each).
 */
export function checkModel(model: DmnModel, problems: DmnProblem[], limits?: DmnLimits): ModelCheck {
  checkIdsAndNames(model, problems);
  checkReferences(model, problems);
  checkCycles(
    'decision',
    new Map(model.decisions.map((d) => [d.id, { name: d.name, next: d.requiredDecisions }])),
    problems,
  );
  checkCycles(
    'business knowledge model',
    new Map(model.bkms.map((b) => [b.id, { name: b.name, next: b.requiredKnowledge }])),
    problems,
  );
  return checkFeel(model, problems, limits);
}

function checkIdsAndNames(model: DmnModel, problems: DmnProblem[]): void {
  const ids = new Set<string>();
  const names = new Map<string, string>();
  const elements = [...model.decisions, ...model.inputData, ...model.bkms, ...model.decisionServices];
  for (const element of elements) {
    if (element.id !== '' && ids.has(element.id)) {
      problems.push({ elementId: element.id, message: `duplicate element id '${element.id}'` });
    }
    ids.add(element.id);
    const other = names.get(element.name);
    if (element.name !== '' && other !== undefined) {
      problems.push({
        elementId: element.id,
        message: `name '${element.name}' is also used by element '${other}'`,
      });
    }
    names.set(element.name, element.id);
  }
}

function checkReferences(model: DmnModel, problems: DmnProblem[]): void {
  const decisions = new Set(model.decisions.map((d) => d.id));
  const inputs = new Set(model.inputData.map((i) => i.id));
  const invocables = new Set([...model.bkms.map((b) => b.id), ...model.decisionServices.map((s) => s.id)]);
  const expect = (owner: string, ids: string[], kind: Set<string>, what: string): void => {
    for (const id of ids) {
      if (!kind.has(id))
        problems.push({ elementId: owner, message: `required ${what} '${id}' does not exist` });
    }
  };
  for (const d of model.decisions) {
    expect(d.id, d.requiredDecisions, decisions, 'decision');
    expect(d.id, d.requiredInputs, inputs, 'input data');
    expect(d.id, d.requiredKnowledge, invocables, 'business knowledge model or decision service');
  }
  for (const b of model.bkms) expect(b.id, b.requiredKnowledge, invocables, 'business knowledge model');
  for (const s of model.decisionServices) {
    expect(
      s.id,
      [...s.outputDecisions, ...s.encapsulatedDecisions, ...s.inputDecisions],
      decisions,
      'decision',
    );
    expect(s.id, s.inputData, inputs, 'input data');
  }
}

function checkCycles(
  what: string,
  graph: Map<string, { name: string; next: string[] }>,
  problems: DmnProblem[],
): void {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): void => {
    const mark = state.get(id);
    if (mark === 'done') return;
    if (mark === 'open') {
      const cycle = [...path.slice(path.indexOf(id)), id].map((n) => graph.get(n)?.name ?? n);
      problems.push({
        elementId: id,
        message: `circular requirement between ${what}s: ${cycle.join(' → ')}`,
      });
      return;
    }
    const node = graph.get(id);
    if (node === undefined) return;
    state.set(id, 'open');
    path.push(id);
    for (const next of node.next) visit(next);
    path.pop();
    state.set(id, 'done');
  };
  for (const id of graph.keys()) visit(id);
}

function checkFeel(model: DmnModel, problems: DmnProblem[], limits?: DmnLimits): ModelCheck {
  const scope = allNames(model);
  let mayRunLong = false;
  const check = (
    text: string | null,
    mode: 'expression' | 'unaryTests',
    elementId: string,
    what: string,
  ): void => {
    if (text === null) return;
    const tooLong = limits === undefined ? null : expressionLengthProblem(text, limits, elementId, what);
    if (tooLong !== null) {
      problems.push(tooLong);
      return;
    }
    const analysis = analyzeFeel(text, mode, scope);
    if (analysis.mayRunLong) mayRunLong = true;
    if (analysis.syntaxError !== null) {
      problems.push({ elementId, message: `${what} '${text}': ${analysis.syntaxError}` });
    }
  };
  const walk = (expression: DmnExpression | null, owner: string): void => {
    if (expression === null) return;
    const at = expression.id ?? owner;
    switch (expression.kind) {
      case 'literal':
        check(expression.text, 'expression', at, 'expression');
        break;
      case 'decisionTable':
        for (const input of expression.inputs) {
          check(input.expression, 'expression', input.id ?? at, 'input expression');
          check(input.inputValues, 'unaryTests', input.id ?? at, 'input values');
        }
        for (const output of expression.outputs) {
          check(output.outputValues, 'unaryTests', output.id ?? at, 'output values');
          check(output.defaultOutput, 'expression', output.id ?? at, 'default output');
        }
        expression.rules.forEach((rule, index) => {
          const where = rule.id ?? `${at} rule ${index + 1}`;
          for (const entry of rule.inputEntries)
            check(entry, 'unaryTests', where, `rule ${index + 1} input entry`);
          for (const entry of rule.outputEntries)
            check(entry, 'expression', where, `rule ${index + 1} output entry`);
        });
        break;
      case 'context':
        for (const entry of expression.entries) walk(entry.value, at);
        break;
      case 'list':
        for (const item of expression.items) walk(item, at);
        break;
      case 'relation':
        for (const row of expression.rows) for (const cell of row) walk(cell, at);
        break;
      case 'invocation':
        mayRunLong = true;
        check(expression.callee, 'expression', at, 'invoked function');
        for (const binding of expression.bindings) walk(binding.value, at);
        break;
      case 'function':
        mayRunLong = true;
        walk(expression.body, at);
        break;
      case 'conditional':
        walk(expression.condition, at);
        walk(expression.then, at);
        walk(expression.otherwise, at);
        break;
      case 'filter':
      case 'for':
      case 'some':
      case 'every':
        mayRunLong = true;
        walk(expression.source, at);
        walk(expression.kind === 'filter' ? expression.match : expression.body, at);
        break;
    }
  };
  for (const d of model.decisions) walk(d.logic, d.id);
  for (const b of model.bkms) walk(b.logic, b.id);
  const checkItem = (item: DmnItemDefinition): void => {
    check(item.allowedValues, 'unaryTests', item.name, 'allowed values');
    item.components.forEach(checkItem);
  };
  model.itemDefinitions.forEach(checkItem);
  return { mayRunLong };
}

/** Every name a FEEL text of the model may use: DRG elements, context entries, parameters, components. */
export function allNames(model: DmnModel): string[] {
  const names = new Set<string>();
  const walk = (expression: DmnExpression | null): void => {
    if (expression === null) return;
    switch (expression.kind) {
      case 'context':
        for (const entry of expression.entries) {
          if (entry.name !== null) names.add(entry.name);
          walk(entry.value);
        }
        break;
      case 'function':
        for (const p of expression.parameters) names.add(p.name);
        walk(expression.body);
        break;
      case 'list':
        expression.items.forEach(walk);
        break;
      case 'relation':
        expression.columns.forEach((c) => names.add(c));
        for (const row of expression.rows) row.forEach(walk);
        break;
      case 'invocation':
        for (const b of expression.bindings) {
          names.add(b.name);
          walk(b.value);
        }
        break;
      case 'conditional':
        [expression.condition, expression.then, expression.otherwise].forEach(walk);
        break;
      case 'filter':
        names.add('item');
        walk(expression.source);
        walk(expression.match);
        break;
      case 'for':
      case 'some':
      case 'every':
        names.add(expression.variable);
        if (expression.kind === 'for') names.add('partial');
        walk(expression.source);
        walk(expression.body);
        break;
      default:
        break;
    }
  };
  for (const e of [...model.decisions, ...model.inputData, ...model.bkms, ...model.decisionServices]) {
    names.add(e.name);
  }
  model.decisions.forEach((d) => walk(d.logic));
  model.bkms.forEach((b) => walk(b.logic));
  const item = (i: DmnItemDefinition): void => {
    names.add(i.name);
    i.components.forEach(item);
  };
  model.itemDefinitions.forEach(item);
  names.delete('');
  return [...names];
}
