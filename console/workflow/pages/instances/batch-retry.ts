import { api } from '../../session.js';
import type { Batch } from './model.js';

/** What became of one instance of a retry batch. */
export interface RetryOutcome {
  instanceId: string;
  outcome: 'done' | 'failed';
  reason?: string;
}

const pollMs = 500;

/**
 * Retries the open incidents of several instances with one `retryIncidents` batch
 * (POST /api/v1/batches), polls GET /api/v1/batches/{id} until it completes, and answers each
 * instance's outcome: failed with the batch's reason, done otherwise.
 */
export async function retryInBatch(orgId: string, instanceIds: string[]): Promise<RetryOutcome[]> {
  let batch = await api.post<Batch>('/api/v1/batches', {
    org_id: orgId,
    type: 'retryIncidents',
    instance_ids: instanceIds,
  });
  while (batch.state !== 'completed') {
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    batch = await api.get<Batch>(`/api/v1/batches/${batch.id}`);
  }
  const failures = new Map(batch.failures.map((failure) => [failure.instance_id, failure.reason]));
  return instanceIds.map((instanceId) => {
    const reason = failures.get(instanceId);
    return reason === undefined ? { instanceId, outcome: 'done' } : { instanceId, outcome: 'failed', reason };
  });
}
