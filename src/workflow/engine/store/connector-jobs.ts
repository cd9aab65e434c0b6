import type { ScriptWait } from '../runtime/index.js';
import type { ExtensionJobPolicy } from './extension-jobs.js';
import { effectColumns, itemColumn, type InsertRows, type WaitRows } from './set-wise-write.js';

/*
 * `connector_jobs`, the engine's part: script waits still open when a call is written (pipelines
 * answer at once) are jobs the connector executor runs later. The executor's own statements are in
 * `connectors/connector-job-repository.ts`.
 */

/** A connector job to write: its wait and the retry policy its extension element declares. */
export interface ConnectorJob {
  wait: ScriptWait;
  policy: ExtensionJobPolicy;
}

/** The engine's insert of the connector jobs its calls opened, due at once. */
export const connectorJobInserts: InsertRows<ConnectorJob> = {
  cte: 'new_connector_jobs',
  table: 'connector_jobs',
  columns: [
    effectColumns.orgId,
    effectColumns.instanceId,
    effectColumns.now,
    itemColumn('wait_id', 'uuid', (job) => job.wait.waitId),
    itemColumn('element_id', 'text', (job) => job.wait.elementId),
    itemColumn('connector', 'text', (job) => job.wait.extension.name),
    itemColumn('retries', 'int', (job) => job.policy.retries),
    itemColumn('backoff_ms', 'int', (job) => job.policy.backoffMs),
    itemColumn('max_backoff_ms', 'int', (job) => job.policy.maxBackoffMs),
  ],
  computed: { due_at: 'r.now', created_at: 'r.now' },
};

/** The engine's delete of the connector jobs of the waits its calls closed. */
export const connectorJobWaits: WaitRows = {
  cte: 'closed_connector_jobs',
  table: 'connector_jobs',
  waitColumn: 'wait_id',
};
