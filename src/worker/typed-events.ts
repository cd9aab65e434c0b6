/** A listener of the event `K` of the event map `M`. */
export type Listener<M, K extends keyof M> = (payload: M[K]) => void;

/**
 * A minimal typed event emitter. Unlike node's EventEmitter, an `error` event without a listener is
 * dropped rather than thrown, and a listener that throws cannot disturb the emitter.
 */
export class TypedEvents<M> {
  readonly #listeners = new Map<keyof M, Set<(payload: never) => void>>();

  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof M>(event: K, listener: Listener<M, K>): () => void {
    let set = this.#listeners.get(event);
    if (set === undefined) this.#listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => this.off(event, listener);
  }

  /** Removes a listener added with {@link on}. */
  off<K extends keyof M>(event: K, listener: Listener<M, K>): void {
    this.#listeners.get(event)?.delete(listener);
  }

  /** Calls every listener of `event`; returns what the listeners threw, for the caller to report. */
  emit<K extends keyof M>(event: K, payload: M[K]): unknown[] {
    const thrown: unknown[] = [];
    for (const listener of [...(this.#listeners.get(event) ?? [])]) {
      try {
        (listener as Listener<M, K>)(payload);
      } catch (error) {
        thrown.push(error);
      }
    }
    return thrown;
  }
}
