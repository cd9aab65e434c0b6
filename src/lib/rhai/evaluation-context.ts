import { RhaiError } from './errors.js';
import type { ResolvedLimits } from './limits.js';
import type { RhaiValue, SharedCell, ThisReference } from './values.js';

/** A variable slot: a value, or a cell shared with closures. */
export type Slot = RhaiValue | SharedCell;

/** A compiled node: evaluates in a frame and yields a value. */
export type Evaluator = (frame: Frame) => RhaiValue;

/** A control-flow signal carried in `EvaluationContext.control` instead of an exception. */
export type ControlSignal = 'none' | 'break' | 'continue' | 'return';

/** The caller's variables, visible to a function called with `name!(...)`. */
export interface DynamicScope {
  frame: Frame;
  names: ReadonlyMap<string, number>;
}

/** Activation record of the top level, a function or a closure. */
export class Frame {
  constructor(
    readonly context: EvaluationContext,
    readonly slots: Slot[],
    readonly thisRef: ThisReference | undefined,
    readonly dynamicScope: DynamicScope | undefined,
  ) {}
}

/** A compiled script function. */
export interface ScriptFunction {
  name: string;
  arity: number;
  slotCount: number;
  body: Evaluator;
}

/** State of one run: counters, limits, control flow, functions and the host scope. */
export class EvaluationContext {
  operations = 0;
  nextLimitCheck: number;
  callDepth = 0;
  control: ControlSignal = 'none';
  controlValue: RhaiValue = undefined;
  /** The error being handled by the innermost running `catch` block (for a bare `throw`). */
  caught: RhaiError | undefined = undefined;
  readonly deadline: number;
  readonly globalConstants = new Map<string, RhaiValue>();

  constructor(
    readonly limits: ResolvedLimits,
    readonly functions: ReadonlyMap<string, ScriptFunction>,
    readonly externals: Map<string, Slot>,
  ) {
    this.deadline = Date.now() + limits.timeoutMs;
    this.nextLimitCheck = Math.min(limits.maxOperations, 256);
  }

  /** Slow path of the operation counter: the operations limit and the wall-clock deadline. */
  checkLimits(): void {
    if (this.operations > this.limits.maxOperations) {
      throw new RhaiError('ErrorTooManyOperations', 'Too many operations');
    }
    if (Date.now() > this.deadline) throw new RhaiError('ErrorTerminated', 'Script timed out');
    this.nextLimitCheck = Math.min(this.limits.maxOperations, this.operations + 256);
  }

  /**
   * Fails with `ErrorTooManyVariables` when a scope that already holds `live` variables cannot take
   * `more` (Rhai's `max_variables`; the top level also holds the host's variables).
   */
  checkVariables(live: number, more: number, topLevel: boolean): void {
    if (more === 0) return;
    const n = live + more + (topLevel ? this.externals.size : 0);
    if (n > this.limits.maxVariables)
      throw new RhaiError('ErrorTooManyVariables', 'Too many variables defined');
  }

  /** Script function by name and arity. */
  scriptFunction(name: string, arity: number): ScriptFunction | undefined {
    return this.functions.get(`${name}/${arity}`);
  }

  hasFunctionNamed(name: string): boolean {
    for (const f of this.functions.values()) if (f.name === name) return true;
    return false;
  }
}
