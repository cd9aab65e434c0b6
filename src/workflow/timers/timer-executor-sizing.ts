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
 * no more than 4: on a small machine more loops only queue for the same CPUs. A batch's instance
 * timers are written with one set-wise statement, so 100 jobs per transaction cost about 50 ms
 * (the instance row locks are held that long) and fire 10,000 timers in 1.5 s where 50 take 1.6 s
 * and 20 take 2.2 s. See docs/workflow/timers.md ("Throughput").
 */
export function timerExecutorSizing(poolSize: number): TimerExecutorSizing {
  return {
    batchSize: 100,
    concurrency: Math.min(4, Math.max(1, Math.floor(poolSize / 2))),
    savepoints: 'after-failure',
  };
}
