import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import type { WrittenEffects } from './effects-writer.js';
import type { InstanceRecord, StoredInstance } from '../store/process-instances.js';
import type { StatementBuilder } from '../store/write-statement.js';

/** Outcome of a driven call: the instance as written. */
export interface DrivenInstance {
  instance: InstanceRecord;
  written: WrittenEffects;
}

/**
 * A precondition of an event besides the instance being unchanged: checked on the state read
 * (`check`, throwing an API error) and again, atomically, by the write (`sql`, e.g. "the worker still
 * holds the task"). `sql` receives a function that turns a value into a statement parameter.
 */
export interface EventCondition {
  /** The instance as read together with the condition's own data: the first attempt uses it. */
  initial?: StoredInstance | null;
  check(stored: StoredInstance, now: Date): Promise<void>;
  sql(param: (value: unknown) => string, now: Date): string;
  /** CTEs the condition's SQL reads, added before the guarded update (e.g. a row locked to claim). */
  before?(statement: StatementBuilder, now: Date): void;
  /** Writes that belong to the event, added after the effects; `guard` is the update's success. */
  after?(statement: StatementBuilder, guard: string): void;
}

/**
 * What happens around messages and signals after an engine call's write: buffered messages are
 * offered to the message waits it opened, and the outbox rows of what it threw are delivered to
 * other instances. `db` is where the call wrote: the pool (committed) or the caller's transaction.
 */
export interface EventHooks {
  messageWaitsOpened(db: Pool | PoolClient, instance: InstanceRecord, written: WrittenEffects): Promise<void>;
  thrown(db: Pool | PoolClient, instance: InstanceRecord, written: WrittenEffects): Promise<void>;
}
