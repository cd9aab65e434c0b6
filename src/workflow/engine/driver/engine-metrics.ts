import { Counter, Histogram, type Registry } from 'prom-client';
import type { InstanceStatus } from '../runtime/index.js';

/** Engine counters and histograms on the workflow service's registry. */
export class EngineMetrics {
  private readonly instances: Counter<'process_key' | 'event'>;
  private readonly jobs: Counter<'type' | 'event'>;
  private readonly externalTasks: Counter<'event'>;
  private readonly duration: Histogram<'process_key' | 'state'>;

  constructor(registry: Registry) {
    this.instances = new Counter({
      name: 'weft_process_instances_total',
      help: 'Process instances by key and life-cycle event (started, completed, cancelled, terminated, incident)',
      labelNames: ['process_key', 'event'],
      registers: [registry],
    });
    this.jobs = new Counter({
      name: 'weft_jobs_total',
      help: 'Jobs by type (external_task, user_task, script, decision) and event (created, completed, failed)',
      labelNames: ['type', 'event'],
      registers: [registry],
    });
    this.externalTasks = new Counter({
      name: 'weft_external_tasks_total',
      help: 'External tasks fetched and completed by workers',
      labelNames: ['event'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'weft_process_instance_duration_seconds',
      help: 'Start-to-end duration of finished process instances',
      labelNames: ['process_key', 'state'],
      buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 60, 300, 3600, 86400],
      registers: [registry],
    });
  }

  /** An instance moved to `event`. */
  instance(processKey: string, event: 'started' | InstanceStatus): void {
    this.instances.inc({ process_key: processKey, event });
  }

  /** A job event. */
  job(type: string, event: 'created' | 'completed' | 'failed', count = 1): void {
    if (count > 0) this.jobs.inc({ type, event }, count);
  }

  /** External tasks fetched or completed. */
  externalTask(event: 'fetched' | 'completed', count = 1): void {
    if (count > 0) this.externalTasks.inc({ event }, count);
  }

  /** A finished instance's duration. */
  finished(processKey: string, state: InstanceStatus, seconds: number): void {
    this.duration.observe({ process_key: processKey, state }, seconds);
  }
}
