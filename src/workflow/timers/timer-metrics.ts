import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { JobObserver } from '../../platform/jobs/job-executor.js';
import type { TimerJob } from '../engine/store/timer-jobs.js';

/** Timer firings, their lateness, and whether this instance is the timer leader. */
export class TimerMetrics implements JobObserver<TimerJob> {
  private readonly firings: Counter<'outcome'>;
  private readonly lateness: Histogram;
  private readonly leader: Gauge;

  constructor(registry: Registry) {
    this.firings = new Counter({
      name: 'weft_timer_firings_total',
      help: 'Timer firings by outcome: fired, failed (will retry), exhausted (no retries left)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.lateness = new Histogram({
      name: 'weft_timer_lateness_seconds',
      help: 'Actual minus due time of fired timers',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600],
      registers: [registry],
    });
    this.leader = new Gauge({
      name: 'weft_timer_leader',
      help: '1 while this instance holds the timer leadership, else 0',
      registers: [registry],
    });
    this.leader.set(0);
  }

  /** A timer fired at `firedAt`. */
  fired(job: TimerJob, firedAt: Date): void {
    this.firings.inc({ outcome: 'fired' });
    this.lateness.observe(Math.max(0, firedAt.getTime() - job.dueAt.getTime()) / 1000);
  }

  /** A firing failed. */
  failed(_job: TimerJob, _error: unknown, retriesLeft: number): void {
    this.firings.inc({ outcome: retriesLeft > 0 ? 'failed' : 'exhausted' });
  }

  /** This instance became or stopped being the leader. */
  setLeader(isLeader: boolean): void {
    this.leader.set(isLeader ? 1 : 0);
  }
}
