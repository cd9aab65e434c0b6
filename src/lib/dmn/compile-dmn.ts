import { FeelFunction } from 'feelin';
import { compileBoxed, compileFunction } from './boxed-expressions.js';
import { compileDecisionTableEntries, type TableEvaluator } from './decision-table.js';
import type { DmnLimits } from './dmn-limits.js';
import { DmnValidationError } from './errors.js';
import type { Scope } from './feel-expression.js';
import { createTypeChecker, type TypeChecker } from './item-types.js';
import { parseDmn } from './parse-dmn.js';
import { applyType, evaluationError, type Evaluator, type Run } from './runtime.js';
import type {
  DecisionInfo,
  DecisionResultEntry,
  DmnBkm,
  DmnDecision,
  DmnDecisionService,
  DmnDecisionTable,
  DmnInputData,
  DmnModel,
} from './types.js';

/** A decision ready to evaluate. */
interface CompiledDecision {
  decision: DmnDecision;
  logic: Evaluator | null;
  /** The decision table that is the decision's logic, if it is one: it also gives result entries. */
  table: TableEvaluator | null;
  inputs: DmnInputData[];
  requiredDecisions: DmnDecision[];
  knowledge: { name: string; id: string }[];
}

/** A BKM ready to evaluate: its logic yields a FEEL function given its required knowledge. */
interface CompiledBkm {
  bkm: DmnBkm;
  logic: Evaluator | null;
  knowledge: { name: string; id: string }[];
}

/** A DMN model compiled once, evaluated many times with evaluateDecision. */
export interface CompiledDmn {
  readonly model: DmnModel;
  /** Whether an evaluation can take long, and so runs within the FEEL time budget. */
  readonly bounded: boolean;
  /** Every decision with its id, name and the input data names it needs (transitively). */
  readonly decisions: readonly DecisionInfo[];
  /** @internal */
  readonly graph: DecisionGraph;
}

/**
 * Parses and compiles a DMN document. Throws DmnValidationError with every problem if the model has any,
 * including, when limits are given (at deploy), a file over them.
 */
export function compileDmn(xml: string, limits?: DmnLimits): CompiledDmn {
  const { definitions, problems, mayRunLong } = parseDmn(xml, limits);
  if (problems.length > 0) throw new DmnValidationError(problems);
  const graph = new DecisionGraph(definitions);
  return { model: definitions, bounded: mayRunLong, decisions: graph.infos(), graph };
}

/** One evaluation over the graph: the caller's inputs, decided values so far, and the run's state. */
export interface Evaluation {
  run: Run;
  inputs: Scope;
  decided: Map<string, unknown>;
  free: Scope | null;
  bkmValues: Map<string, FeelFunction>;
  /** Result entries of the decisions decided by a decision table, by decision id. */
  tableEntries: Map<string, DecisionResultEntry[]>;
}

/** The compiled decision requirements graph. */
export class DecisionGraph {
  private readonly decisions = new Map<string, CompiledDecision>();
  private readonly bkms = new Map<string, CompiledBkm>();
  private readonly services = new Map<string, DmnDecisionService>();
  private readonly names: Set<string>;
  private readonly inputsById: Map<string, DmnInputData>;
  private readonly types: TypeChecker;

  constructor(private readonly model: DmnModel) {
    this.types = createTypeChecker(model.itemDefinitions);
    const byId = new Map<string, { name: string }>();
    for (const e of [...model.decisions, ...model.inputData, ...model.bkms, ...model.decisionServices]) {
      byId.set(e.id, e);
    }
    this.names = new Set(byId.size > 0 ? [...byId.values()].map((e) => e.name) : []);
    const inputsById = new Map(model.inputData.map((i) => [i.id, i]));
    this.inputsById = inputsById;
    const decisionsById = new Map(model.decisions.map((d) => [d.id, d]));
    const knowledgeOf = (ids: string[]): { name: string; id: string }[] =>
      ids.map((id) => ({ id, name: byId.get(id)?.name ?? id }));

    for (const service of model.decisionServices) this.services.set(service.id, service);
    for (const bkm of model.bkms) {
      const knowledge = knowledgeOf(bkm.requiredKnowledge);
      const env = { owner: bkm, scope: knowledge.map((k) => k.name), types: this.types };
      this.bkms.set(bkm.id, {
        bkm,
        knowledge,
        logic: bkm.logic === null ? null : compileFunction(bkm.logic, env),
      });
    }
    for (const decision of model.decisions) {
      const inputs = decision.requiredInputs.map((id) => inputsById.get(id)).filter(isDefined);
      const requiredDecisions = decision.requiredDecisions
        .map((id) => decisionsById.get(id))
        .filter(isDefined);
      const knowledge = knowledgeOf(decision.requiredKnowledge);
      const scope = [
        ...inputs.map((i) => i.name),
        ...requiredDecisions.map((d) => d.name),
        ...knowledge.map((k) => k.name),
      ];
      const env = { owner: decision, scope, types: this.types };
      const table =
        decision.logic?.kind === 'decisionTable' ? compileDecisionTableEntries(decision.logic, env) : null;
      this.decisions.set(decision.id, {
        decision,
        inputs,
        requiredDecisions,
        knowledge,
        table,
        logic: table !== null || decision.logic === null ? null : compileBoxed(decision.logic, env),
      });
    }
  }

  /** The decisions with the input data names each needs, directly or through required decisions. */
  infos(): DecisionInfo[] {
    // Each decision's inputs are worked out once and shared by the decisions requiring it, so a long
    // chain of requirements costs its length, not its length squared.
    const inputsOf = new Map<string, ReadonlySet<string>>();
    const visiting = new Set<string>();
    const resolve = (id: string): ReadonlySet<string> => {
      const known = inputsOf.get(id);
      if (known !== undefined) return known;
      const compiled = this.decisions.get(id);
      if (compiled === undefined || visiting.has(id)) return new Set();
      visiting.add(id);
      const own = compiled.inputs.map((i) => i.name);
      const required = compiled.requiredDecisions.map((d) => resolve(d.id));
      visiting.delete(id);
      // One requirement with no inputs of its own: its set serves as it is.
      const only = required.length === 1 && own.length === 0 ? required[0] : undefined;
      const inputs = only ?? new Set([...own, ...required.flatMap((set) => [...set])]);
      inputsOf.set(id, inputs);
      return inputs;
    };
    return this.model.decisions.map((decision) => ({
      id: decision.id,
      name: decision.name,
      requiredInputs: [...resolve(decision.id)],
    }));
  }

  /** The decision with this id, or else this name. */
  findDecision(key: string): DmnDecision | null {
    const byId = this.decisions.get(key);
    if (byId !== undefined) return byId.decision;
    return this.model.decisions.find((d) => d.name === key) ?? null;
  }

  /** The decision service with this id, or else this name. */
  findService(key: string): DmnDecisionService | null {
    return this.services.get(key) ?? this.model.decisionServices.find((s) => s.name === key) ?? null;
  }

  /** Starts an evaluation with the caller's (already FEEL-coerced) inputs. */
  start(inputs: Scope, run: Run): Evaluation {
    return { run, inputs, decided: new Map(), free: null, bkmValues: new Map(), tableEntries: new Map() };
  }

  /** Evaluates a decision and, first, the decisions it requires; each decision once per evaluation. */
  decide(id: string, ev: Evaluation): unknown {
    if (ev.decided.has(id)) return ev.decided.get(id);
    const compiled = this.decisions.get(id);
    if (compiled === undefined) throw new Error(`unknown decision '${id}'`);
    const { decision } = compiled;
    ev.free ??= this.freeVariables(ev.inputs);
    const vars: Scope = { ...ev.free };
    const requiredValues = compiled.requiredDecisions.map((required) => {
      const value = this.decide(required.id, ev);
      const entries = ev.tableEntries.get(required.id);
      if (required.logic?.kind === 'decisionTable' && entries !== undefined)
        Object.assign(vars, outputVariables(required.logic, entries));
      return { name: required.name, value };
    });
    for (const input of compiled.inputs) {
      if (!Object.hasOwn(ev.inputs, input.name) || ev.inputs[input.name] === undefined) {
        if (ev.run.strict) {
          throw evaluationError(
            decision,
            { elementId: input.id },
            `required input '${input.name}' was not provided`,
          );
        }
        vars[input.name] = null;
        continue;
      }
      vars[input.name] = applyType(
        ev.inputs[input.name],
        input.typeRef,
        { owner: decision, scope: [], types: this.types },
        ev.run,
        { elementId: input.id },
        `input '${input.name}'`,
      );
    }
    for (const { name, value } of requiredValues) vars[name] = value;
    for (const k of compiled.knowledge) vars[k.name] = this.invocable(k.id, ev);
    let raw: unknown;
    if (compiled.table !== null) {
      const outcome = compiled.table(vars, ev.run);
      ev.tableEntries.set(id, outcome.entries);
      raw = outcome.value;
    } else if (compiled.logic !== null) {
      raw = compiled.logic(vars, ev.run);
    } else {
      if (ev.run.strict) throw evaluationError(decision, {}, 'the decision has no decision logic');
      ev.decided.set(id, null);
      return null;
    }
    const env = { owner: decision, scope: [], types: this.types };
    const value = applyType(raw, decision.typeRef, env, ev.run, {}, 'the result');
    ev.decided.set(id, value);
    return value;
  }

  /** Evaluates a decision service with its parameters given by name; returns the output decisions by name. */
  invokeService(service: DmnDecisionService, given: Scope, run: Run): Record<string, unknown> {
    const inputs: Scope = {};
    for (const id of service.inputData) {
      const input = this.inputsById.get(id);
      if (input !== undefined) inputs[input.name] = given[input.name] ?? null;
    }
    const ev = this.start(inputs, run);
    ev.free = {};
    for (const id of service.inputDecisions) {
      const decision = this.decisions.get(id)?.decision;
      if (decision !== undefined) {
        const type = { owner: decision, scope: [], types: this.types };
        ev.decided.set(
          id,
          applyType(given[decision.name] ?? null, decision.typeRef, type, run, {}, 'the input'),
        );
      }
    }
    const result: Record<string, unknown> = {};
    for (const id of service.outputDecisions) {
      const decision = this.decisions.get(id)?.decision;
      if (decision !== undefined) result[decision.name] = this.decide(id, ev);
    }
    return result;
  }

  private invocable(id: string, ev: Evaluation): FeelFunction | null {
    const cached = ev.bkmValues.get(id);
    if (cached !== undefined) return cached;
    const service = this.services.get(id);
    if (service !== undefined) {
      const params = [...service.inputData, ...service.inputDecisions].map((ref) => {
        const element = this.inputsById.get(ref) ?? this.decisions.get(ref)?.decision;
        return { name: element?.name ?? ref, typeRef: element?.typeRef ?? null };
      });
      const names = params.map((p) => p.name);
      // Invoked as a function (DMN 1.5 10.4): the wrong number of arguments, or an argument that does
      // not conform to its parameter's type, makes the invocation null; the service is not run.
      const fn = new FeelFunction((...args: unknown[]) => {
        if (args.length !== params.length) return null;
        const given: Scope = {};
        for (const [i, { name, typeRef }] of params.entries()) {
          const conformance = this.types.conform(args[i] ?? null, typeRef);
          if (!conformance.ok) return null;
          given[name] = conformance.value;
        }
        const outputs = this.invokeService(service, given, ev.run);
        const values = Object.values(outputs);
        return values.length === 1 ? values[0] : outputs;
      }, names);
      ev.bkmValues.set(id, fn);
      return fn;
    }
    const bkm = this.bkms.get(id);
    if (bkm === undefined || bkm.logic === null) return null;
    const vars: Scope = {};
    for (const k of bkm.knowledge) vars[k.name] = this.invocable(k.id, ev);
    const fn = bkm.logic(vars, ev.run);
    if (!(fn instanceof FeelFunction)) return null;
    ev.bkmValues.set(id, fn);
    return fn;
  }

  // Caller variables that are not DRG element names are visible to every decision, for models (such as
  // Camunda-style decision tables) whose expressions read variables without declaring input data.
  private freeVariables(inputs: Scope): Scope {
    const free: Scope = {};
    for (const [name, value] of Object.entries(inputs)) if (!this.names.has(name)) free[name] = value;
    return free;
  }
}

function isDefined<T>(value: T | undefined): value is T {
  return value !== undefined;
}

/**
 * The variables a required decision table gives the decisions that require it, as Camunda 7 binds
 * them: its output names (the invoice example's `invoiceClassification`), besides the decision's own
 * name that DMN 1.3 binds. One result of a single-result table binds each output to its value; the
 * results of a COLLECT (without aggregation), RULE ORDER or OUTPUT ORDER table bind each output to
 * the list of its values; no result binds nothing. The names of the DRG's own elements (input data,
 * required decisions, knowledge) are bound after these and win.
 */
function outputVariables(table: DmnDecisionTable, entries: DecisionResultEntry[]): Scope {
  if (entries.length === 0) return {};
  const multiple =
    (table.hitPolicy === 'COLLECT' && table.aggregation === null) ||
    table.hitPolicy === 'RULE ORDER' ||
    table.hitPolicy === 'OUTPUT ORDER';
  if (!multiple && entries.length === 1) return { ...entries[0] };
  const names = new Set(entries.flatMap((entry) => Object.keys(entry)));
  return Object.fromEntries(
    [...names].map((name) => [
      name,
      entries.filter((entry) => Object.hasOwn(entry, name)).map((entry) => entry[name]),
    ]),
  );
}
