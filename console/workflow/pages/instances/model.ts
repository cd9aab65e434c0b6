/** A process instance (`GET /api/v1/process-instances`). */
export interface Instance {
  id: string;
  counter: number;
  process_key: string;
  definition_id: string;
  state: 'running' | 'completed' | 'cancelled' | 'incident' | 'terminated';
  business_key: string | null;
  variables: Record<string, unknown>;
  started_at: string;
  ended_at: string | null;
  parent_instance_id: string | null;
  suspended: boolean;
}

/** An open incident of an instance. */
export interface Incident {
  id: string;
  activity_id: string;
  kind: string;
  message: string;
  created_at: string;
}

/** `GET /api/v1/process-instances/{id}`. */
export interface InstanceDetail extends Instance {
  active_element_ids: string[];
  incidents: Incident[];
}

/** One entry of `GET /api/v1/process-instances/{id}/history`. */
export interface HistoryEntry {
  id: number;
  kind: string;
  element_id: string;
  element_type: string;
  token_id: string | null;
  at: string;
  data: Record<string, unknown>;
}

/** An open incident with its instance (`GET /api/v1/incidents`). */
export interface OrgIncident extends Incident {
  process_instance_id: string;
  process_key: string;
  definition_id: string;
  business_key: string | null;
}

/** A batch (`GET /api/v1/batches/{id}`). */
export interface Batch {
  id: string;
  state: 'running' | 'completed';
  total: number;
  done: number;
  failed: number;
  failures: { instance_id: string; reason: string }[];
}

/** The instance states, for filters. */
export const instanceStates: Instance['state'][] = [
  'running',
  'incident',
  'completed',
  'cancelled',
  'terminated',
];
