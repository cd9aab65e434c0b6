import type { EngineEvent, HistoryEntry, Wait } from '../runtime/index.js';

/** Where the wait belongs. */
export interface WaitOwner {
  orgId: string;
  instanceId: string;
  /** The instance's business key and definition, for work that shows them (JavaScript's `execution`). */
  businessKey?: string | null;
  definitionId?: string;
}

/** The answer to an immediate wait, with history entries of its own (a pipeline's steps). */
export interface ImmediateOutcome {
  event: EngineEvent;
  history?: HistoryEntry[];
}

/**
 * Work the driver does at once, inside the call that opened the wait: script pipelines and
 * connectors (`script` waits) and business rule tasks (`decision` waits). A handler returns the
 * event that answers the wait, or null to leave it open.
 */
export interface ImmediateWork {
  handles(wait: Wait): boolean;
  run(wait: Wait, owner: WaitOwner): Promise<ImmediateOutcome | null>;
}

/** Combines handlers; the first that handles a wait runs it. */
export function combineImmediateWork(handlers: readonly ImmediateWork[]): ImmediateWork {
  return {
    handles: (wait) => handlers.some((handler) => handler.handles(wait)),
    run: async (wait, owner) => {
      const handler = handlers.find((candidate) => candidate.handles(wait));
      return handler ? handler.run(wait, owner) : null;
    },
  };
}
