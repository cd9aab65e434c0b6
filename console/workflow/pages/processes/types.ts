import type { ProcessDefinition } from '../../types.js';

/** A process group of the org (`GET /api/v1/orgs/{org_id}/process-groups`). */
export interface ProcessGroup {
  id: string;
  name: string;
}

/** How many instances of a version are in each state. */
export interface InstanceCounts {
  running: number;
  incident: number;
  completed: number;
  cancelled: number;
  terminated: number;
}

/** One version's counts (`GET /api/v1/deployments/statistics`). */
export interface VersionInstanceCounts extends InstanceCounts {
  definition_id: string;
}

/** `GET /api/v1/deployments/{id}/statistics`. */
export interface DeploymentStatistics {
  instances: InstanceCounts;
  elements: { element_id: string; active: number; incidents: number }[];
}

/** `GET /api/v1/deployments/{id}`: a version with its XML. */
export interface ProcessDefinitionWithXml extends ProcessDefinition {
  xml: string;
}

/** One problem of a refused deployment (the 400's `details.errors`). */
export interface DeployProblem {
  element_id: string | null;
  message: string;
}
