/** A deployed version or draft (`GET /api/v1/deployments`). */
export interface ProcessDefinition {
  id: string;
  process_key: string;
  version: number | null;
  name: string;
  disabled: boolean;
  suspended: boolean;
  draft: boolean;
  deployed_at: string;
  process_group_id: string;
}
