/**
 * What the host gives an evaluation: the variables in scope, the execution and task the expression
 * runs for, the clock and the current user. The library keeps no state between evaluations.
 *
 * Variable values are JSON (null, boolean, number, string, array, object) or JavaScript Dates.
 */
export interface JuelContext {
  /** Every variable visible where the expression runs (an execution's own variables over its parents'). */
  readonly variables: Readonly<Record<string, unknown>>;
  /** The execution, resolved by the identifier `execution`; absent where there is none. */
  readonly execution?: JuelExecution;
  /** The user task, resolved by the identifier `task` (task listeners, task attributes). */
  readonly task?: JuelTask;
  /** The current time, for `now()` and `dateTime()`. */
  readonly clock: () => Date;
  /** `currentUser()` and `authenticatedUserId`; null or absent when no user is authenticated. */
  readonly currentUser?: string | null;
  /** `currentUserGroups()`; null or absent when no user is authenticated. */
  readonly currentUserGroups?: readonly string[] | null;
}

/** The execution an expression runs for, as `execution.…` sees it. Absent fields read as null. */
export interface JuelExecution {
  readonly id?: string | null;
  readonly processInstanceId?: string | null;
  readonly processBusinessKey?: string | null;
  readonly processDefinitionId?: string | null;
  readonly activityId?: string | null;
  readonly activityName?: string | null;
  readonly tenantId?: string | null;
  /** The execution's own variables (`getVariableLocal`); absent means none. */
  readonly localVariables?: Readonly<Record<string, unknown>>;
  /**
   * `execution.setVariable(name, value)`: given by hosts that let an expression write a variable
   * (expression listeners); without it the call is an evaluation error.
   */
  readonly setVariable?: (name: string, value: unknown) => void;
}

/** The user task an expression runs for, as `task.…` sees it. Absent fields read as null. */
export interface JuelTask {
  readonly id?: string | null;
  readonly name?: string | null;
  readonly assignee?: string | null;
  readonly owner?: string | null;
  readonly description?: string | null;
  readonly taskDefinitionKey?: string | null;
  readonly priority?: number | null;
  readonly dueDate?: Date | null;
  readonly processInstanceId?: string | null;
  readonly executionId?: string | null;
  readonly tenantId?: string | null;
  /** The task's own variables (`getVariableLocal`); `getVariable` reads them before the context's. */
  readonly localVariables?: Readonly<Record<string, unknown>>;
  /** `task.setVariable(name, value)`, as for the execution. */
  readonly setVariable?: (name: string, value: unknown) => void;
}
