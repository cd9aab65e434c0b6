import type { JuelContext, JuelExecution, JuelTask } from './context.js';

/** What the identifier `execution` resolves to: the host's execution, seen with the context's variables. */
export class ExecutionObject {
  constructor(
    readonly execution: JuelExecution,
    readonly context: JuelContext,
  ) {}
}

/** What the identifier `task` resolves to. */
export class TaskObject {
  constructor(
    readonly task: JuelTask,
    readonly context: JuelContext,
  ) {}
}
