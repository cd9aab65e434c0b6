import type { ListedDefinition } from '../engine/store/process-definitions.js';

/*
 * weft's deployed versions in the shape of Camunda 7's ProcessDefinitionDto. The id is weft's
 * definition id (a UUID, where Camunda writes `key:version:uuid`); weft keeps no categories,
 * descriptions, diagrams or version tags; a version that cannot start instances
 * (suspended, or disabled on weft's API) is `suspended` (docs/workflow/camunda7.md).
 */

/** Camunda's ProcessDefinitionDto. */
export interface ProcessDefinitionDto {
  id: string;
  key: string;
  category: null;
  description: null;
  name: string;
  version: number;
  resource: string;
  deploymentId: string;
  diagram: null;
  suspended: boolean;
  tenantId: string;
  versionTag: null;
  historyTimeToLive: number | null;
  startableInTasklist: boolean;
}

/**
 * A version as Camunda shows it. `resource` is the file name it was deployed from when known (the
 * answer of a deployment), else `<key>.bpmn`: weft does not keep file names.
 */
export function processDefinitionDto(definition: ListedDefinition, resource?: string): ProcessDefinitionDto {
  return {
    id: definition.id,
    key: definition.process_key,
    category: null,
    description: null,
    name: definition.name,
    version: definition.version ?? 0,
    resource: resource ?? `${definition.process_key}.bpmn`,
    deploymentId: definition.deployment_id,
    diagram: null,
    suspended: definition.suspended || definition.disabled,
    tenantId: definition.tenant_id,
    versionTag: null,
    historyTimeToLive: definition.history_time_to_live,
    startableInTasklist: true,
  };
}
