/** The properties and methods of `execution` and `task`: what Camunda 7's expressions read of them. */
import { toText } from './coercion.js';
import type { JuelContext } from './context.js';
import { JuelError } from './errors.js';
import type { TaskObject } from './host-objects.js';
import { ExecutionObject } from './host-objects.js';
import type { MethodTable } from './method-table.js';
import { arg, method } from './method-table.js';
import type { JuelValue } from './values.js';
import { fromJson, mapEntry, toResult } from './values.js';

type Getter<R> = (receiver: R) => JuelValue;

const EXECUTION_PROPERTIES: Readonly<Record<string, Getter<ExecutionObject>>> = {
  id: (e) => e.execution.id ?? null,
  processInstanceId: (e) => e.execution.processInstanceId ?? null,
  processBusinessKey: (e) => e.execution.processBusinessKey ?? null,
  businessKey: (e) => e.execution.processBusinessKey ?? null,
  processDefinitionId: (e) => e.execution.processDefinitionId ?? null,
  activityId: (e) => e.execution.activityId ?? null,
  currentActivityId: (e) => e.execution.activityId ?? null,
  currentActivityName: (e) => e.execution.activityName ?? null,
  tenantId: (e) => e.execution.tenantId ?? null,
};

const TASK_PROPERTIES: Readonly<Record<string, Getter<TaskObject>>> = {
  id: (t) => t.task.id ?? null,
  name: (t) => t.task.name ?? null,
  assignee: (t) => t.task.assignee ?? null,
  owner: (t) => t.task.owner ?? null,
  description: (t) => t.task.description ?? null,
  taskDefinitionKey: (t) => t.task.taskDefinitionKey ?? null,
  priority: (t) => (t.task.priority === undefined ? null : fromJson(t.task.priority)),
  dueDate: (t) => t.task.dueDate ?? null,
  processInstanceId: (t) => t.task.processInstanceId ?? null,
  executionId: (t) => t.task.executionId ?? null,
  tenantId: (t) => t.task.tenantId ?? null,
};

/** `execution.name` / `task.name` (a bean property); an unknown name is an error. */
export function hostProperty(receiver: ExecutionObject | TaskObject, name: string): JuelValue {
  if (receiver instanceof ExecutionObject) {
    const getter = own(EXECUTION_PROPERTIES, name);
    if (getter !== undefined) return getter(receiver);
    throw new JuelError(`Property '${name}' not found on execution`);
  }
  const getter = own(TASK_PROPERTIES, name);
  if (getter !== undefined) return getter(receiver);
  throw new JuelError(`Property '${name}' not found on task`);
}

function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
}

function getterMethods<R>(properties: Readonly<Record<string, Getter<R>>>): MethodTable<R> {
  const out: Record<string, ReturnType<typeof method<R>>> = {};
  for (const [name, getter] of Object.entries(properties)) {
    out[`get${name[0]!.toUpperCase()}${name.slice(1)}`] = method(0, (r) => getter(r));
  }
  return out;
}

function variable(variables: Readonly<Record<string, unknown>> | undefined, name: string): unknown {
  return variables === undefined ? undefined : mapEntry(variables, name);
}

function setter(
  hook: ((name: string, value: unknown) => void) | undefined,
  what: string,
): (name: JuelValue, value: JuelValue) => JuelValue {
  return (name, value) => {
    if (hook === undefined) throw new JuelError(`${what}.setVariable is not available here`);
    hook(toText(name), toResult(value));
    return null;
  };
}

function scope(context: JuelContext): Readonly<Record<string, unknown>> {
  return context.variables;
}

/** The allowed methods of `execution`. */
export const EXECUTION_METHODS: MethodTable<ExecutionObject> = {
  ...getterMethods(EXECUTION_PROPERTIES),
  getVariable: method(1, (e, a) => fromJson(variable(scope(e.context), toText(arg(a, 0))))),
  getVariableLocal: method(1, (e, a) => fromJson(variable(e.execution.localVariables, toText(arg(a, 0))))),
  hasVariable: method(1, (e, a) => variable(scope(e.context), toText(arg(a, 0))) !== undefined),
  hasVariableLocal: method(
    1,
    (e, a) => variable(e.execution.localVariables, toText(arg(a, 0))) !== undefined,
  ),
  getVariables: method(0, (e) => scope(e.context)),
  getVariablesLocal: method(0, (e) => e.execution.localVariables ?? {}),
  setVariable: method(2, (e, a) => setter(e.execution.setVariable, 'execution')(arg(a, 0), arg(a, 1))),
};

function taskVariable(t: TaskObject, name: string): unknown {
  const local = variable(t.task.localVariables, name);
  return local !== undefined ? local : variable(scope(t.context), name);
}

/** The allowed methods of `task`. */
export const TASK_METHODS: MethodTable<TaskObject> = {
  ...getterMethods(TASK_PROPERTIES),
  getVariable: method(1, (t, a) => fromJson(taskVariable(t, toText(arg(a, 0))))),
  getVariableLocal: method(1, (t, a) => fromJson(variable(t.task.localVariables, toText(arg(a, 0))))),
  hasVariable: method(1, (t, a) => taskVariable(t, toText(arg(a, 0))) !== undefined),
  hasVariableLocal: method(1, (t, a) => variable(t.task.localVariables, toText(arg(a, 0))) !== undefined),
  getVariables: method(0, (t) => ({ ...scope(t.context), ...t.task.localVariables })),
  getVariablesLocal: method(0, (t) => t.task.localVariables ?? {}),
  setVariable: method(2, (t, a) => setter(t.task.setVariable, 'task')(arg(a, 0), arg(a, 1))),
};
