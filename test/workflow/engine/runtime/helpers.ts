import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CompileOptions, ProcessModel } from '../../../../src/workflow/engine/model/index.js';
import { compileBpmn } from '../../../../src/workflow/engine/model/index.js';
import type {
  Effect,
  EngineContext,
  EngineEvent,
  EngineResult,
  HistoryEntry,
  InstanceState,
  Variables,
  Wait,
} from '../../../../src/workflow/engine/runtime/index.js';
import { applyEvent, startInstance } from '../../../../src/workflow/engine/runtime/index.js';

/** Weft extensions the fixtures use: a script pipeline and an HTTP connector. */
export const EXTENSIONS: CompileOptions = {
  extensions: {
    pipeline: { implements: ['scriptTask'] },
    http: { implements: ['serviceTask', 'sendTask'] },
  },
};

/** Compiles a fixture of this folder's `fixtures/` and returns its one process. */
export async function loadModel(name: string): Promise<ProcessModel> {
  const path = fileURLToPath(new URL(`fixtures/${name}`, import.meta.url));
  const result = await compileBpmn(readFileSync(path, 'utf8'), EXTENSIONS);
  assert.ok(result.ok, `fixture ${name} does not compile: ${JSON.stringify(!result.ok && result.problems)}`);
  const model = result.processes[0];
  assert.ok(model !== undefined);
  return model;
}

/** A deterministic context: ids `id1`, `id2`…, a fixed clock. */
export function testContext(
  maxStepsPerCall = 1000,
  maxMultiInstance = 10_000,
): EngineContext & { ids: number } {
  const context = {
    ids: 0,
    now: new Date('2030-01-02T03:04:05.000Z'),
    maxStepsPerCall,
    maxMultiInstance,
    newId(): string {
      context.ids += 1;
      return `id${context.ids}`;
    },
  };
  return context;
}

/**
 * Drives one instance through the engine as the driver would: keeps the state, collects every
 * effect, and finds waits by element so scenarios read "when the worker of `charge` completes".
 */
export class Scenario {
  state!: InstanceState;
  readonly effects: Effect[] = [];
  readonly ctx: EngineContext;

  constructor(
    readonly model: ProcessModel,
    maxStepsPerCall = 1000,
    maxMultiInstance = 10_000,
  ) {
    this.ctx = testContext(maxStepsPerCall, maxMultiInstance);
  }

  /** Starts the instance; asserts success. */
  start(variables: Variables = {}, startEventId?: string): this {
    const input = startEventId === undefined ? { variables } : { variables, startEventId };
    this.accept(startInstance(this.model, input, this.ctx));
    return this;
  }

  /** Applies an event; asserts success. */
  send(event: EngineEvent): this {
    this.accept(applyEvent(this.model, this.state, event, this.ctx));
    return this;
  }

  /** Applies an event and returns the raw result (for refusals). */
  try(event: EngineEvent): EngineResult {
    return applyEvent(this.model, this.state, event, this.ctx);
  }

  /** Completes the one open wait at an element. */
  complete(elementId: string, variables?: Variables): this {
    const wait = this.wait(elementId);
    return this.send(
      variables === undefined
        ? { type: 'complete', waitId: wait.waitId }
        : { type: 'complete', waitId: wait.waitId, variables },
    );
  }

  /** The one open wait at an element (asserted). */
  wait(elementId: string): Wait {
    const waits = this.waitsAt(elementId);
    assert.equal(
      waits.length,
      1,
      `expected one wait at '${elementId}', found ${waits.length}; open: ${this.openWaits().join(', ')}`,
    );
    return waits[0] as Wait;
  }

  /** Open waits at an element. */
  waitsAt(elementId: string): Wait[] {
    return Object.values(this.state.waits).filter((wait) => wait.elementId === elementId);
  }

  /** Element ids of open waits, sorted. */
  openWaits(): string[] {
    return Object.values(this.state.waits)
      .map((wait) => wait.elementId)
      .sort();
  }

  /** Element ids of live tokens, sorted. */
  tokens(): string[] {
    return Object.values(this.state.tokens)
      .map((token) => token.elementId)
      .sort();
  }

  /** The root scope's variables. */
  variables(): Variables {
    const root = this.state.scopes[this.state.rootScopeId];
    assert.ok(root !== undefined);
    return root.variables;
  }

  /** History entries so far. */
  history(): HistoryEntry[] {
    return this.effects.flatMap((effect) => (effect.type === 'history' ? [effect.entry] : []));
  }

  /** Element ids of history entries of one kind, in order. */
  historyOf(kind: HistoryEntry['kind']): string[] {
    return this.history()
      .filter((entry) => entry.kind === kind)
      .map((entry) => entry.elementId);
  }

  /** Effects of one type. */
  effectsOf<T extends Effect['type']>(type: T): Extract<Effect, { type: T }>[] {
    return this.effects.filter((effect): effect is Extract<Effect, { type: T }> => effect.type === type);
  }

  /** Open incidents. */
  incidents() {
    return Object.values(this.state.incidents);
  }

  private accept(result: EngineResult): void {
    assert.ok(result.ok, `engine refused: ${JSON.stringify(!result.ok && result.error)}`);
    this.state = result.state;
    this.effects.push(...result.effects);
  }
}

/** Every ordering of the items. */
export function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, index) =>
    permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]),
  );
}
