/** How the service's timer executor is sized: jobs per transaction and claim loops. */
export interface TimerExecutorSizing {
  batchSize: number;
  concurrency: number;
  /** The engine's firings are safe to run again after a rollback (see JobExecutorOptions). */
  savepoints: 'after-failure';
}

/**
 * Sizes the leader's timer executor from its pool's size. Each claim loop holds one pool connection for
 * its batch's transaction, so the loops take at most half the pool (the API keeps the rest), and
 * no more than 4: on a small machine more loops only queue for the same CPUs. 20 jobs per
 * transaction halves the commits of the former 10 while keeping a batch (and the instance row
 * locks it holds) to tens of milliseconds. See docs/workflow/timers.md ("Throughput").
 */
export function timerExecutorSizing(poolSize: number): TimerExecutorSizing {
  return {
    batchSize: 20,
    concurrency: Math.min(4, Math.max(1, Math.floor(poolSize / 2))),
    savepoints: 'after-failure',
  };
}
