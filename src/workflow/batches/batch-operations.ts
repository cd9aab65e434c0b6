import type { PoolClient } from '../../platform/database/pool.js';
import type { Identity } from '../identity/auth/identity.js';

/** What an operation gets for one item: the transaction it writes in (its item's state commits with it). */
export interface ItemContext {
  client: PoolClient;
  now: Date;
  batchId: string;
  orgId: string;
}

/**
 * One kind of batch: what it does to one instance, and how its parameters are checked when a batch
 * is created. `run` writes only through `context.client`; throwing fails the item with the error's
 * message as its reason (its writes are rolled back) and the batch goes on.
 */
export interface BatchOperation<P = unknown> {
  /**
   * Checks the request's parameters of this type (e.g. a migration's plan) and returns what is
   * stored with the batch and handed to `run`; throws a 4xx error when they are invalid.
   */
  parse(params: Record<string, unknown>, request: { orgId: string; identity: Identity }): Promise<P>;
  run(context: ItemContext, instanceId: string, params: P): Promise<void>;
  /**
   * Does `run` for several instances at once (fewer statements: the engine's set-wise write). It
   * must throw if any instance fails: the chunk is then rolled back and run again item by item,
   * each in a savepoint, so the failed item gets its reason. Optional.
   */
  runAll?(context: ItemContext, instanceIds: readonly string[], params: P): Promise<void>;
}

/** The batch types, by name: one registered operation each. */
export class BatchOperations {
  private readonly operations = new Map<string, BatchOperation>();

  /** Registers the operation of a batch type (suspend, resume, modify… are added the same way). */
  register<P>(type: string, operation: BatchOperation<P>): this {
    if (this.operations.has(type)) throw new Error(`the batch type ${type} is already registered`);
    this.operations.set(type, operation);
    return this;
  }

  /** The operation of a type; undefined when none is registered. */
  get(type: string): BatchOperation | undefined {
    return this.operations.get(type);
  }

  /** The registered types. */
  types(): string[] {
    return [...this.operations.keys()].sort();
  }
}

/** The message of an item's failure. */
export function failureReason(error: unknown): string {
  if (error instanceof Error) {
    const problems = (error as { problems?: { message: string }[] }).problems;
    if (Array.isArray(problems) && problems.length > 0)
      return `${error.message}: ${problems.map((p) => p.message).join('; ')}`;
    return error.message;
  }
  return String(error);
}
