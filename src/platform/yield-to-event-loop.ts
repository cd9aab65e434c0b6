/**
 * Lets the event loop serve other work (health checks, other requests) before going on: the pause
 * between slices of a long engine call, such as the start of a multi-instance body of thousands of
 * instances.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
