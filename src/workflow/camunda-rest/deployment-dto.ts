import type { DeployedDecisionRecord, DeploymentRecord } from '../engine/store/deployment-view.js';
import { formatCamundaDate } from './camunda-date.js';
import type { LinkDto } from './links.js';
import type { ProcessDefinitionDto } from './process-definition-dto.js';

/*
 * weft's deployments (what one transaction deployed, deployment-view.ts) in the shapes of Camunda
 * 7's DeploymentDto and DeploymentWithDefinitionsDto. weft keeps no deployment source: `source` is
 * null; the name is the process group's (docs/workflow/camunda7.md, Deployments).
 */

/** Camunda's DeploymentDto. */
export interface DeploymentDto {
  links: LinkDto[];
  id: string;
  name: string | null;
  source: null;
  deploymentTime: string;
  tenantId: string;
}

/** Camunda's DecisionDefinitionDto (as a deployment lists it). */
export interface DecisionDefinitionDto {
  id: string;
  key: string;
  category: null;
  name: string;
  version: number;
  resource: string;
  deploymentId: string;
  decisionRequirementsDefinitionId: null;
  decisionRequirementsDefinitionKey: null;
  tenantId: string;
  versionTag: null;
  historyTimeToLive: number | null;
}

/** Camunda's DeploymentWithDefinitionsDto: a deployment and the definitions it created, by id. */
export interface DeploymentWithDefinitionsDto extends DeploymentDto {
  deployedProcessDefinitions: Record<string, ProcessDefinitionDto> | null;
  deployedCaseDefinitions: null;
  deployedDecisionDefinitions: Record<string, DecisionDefinitionDto> | null;
  deployedDecisionRequirementsDefinitions: null;
}

/** A deployment as Camunda lists it; `link` is its self link. */
export function deploymentDto(deployment: DeploymentRecord, link: LinkDto): DeploymentDto {
  return {
    links: [link],
    id: deployment.id,
    name: deployment.name,
    source: null,
    deploymentTime: formatCamundaDate(deployment.deployed_at),
    tenantId: deployment.tenant_id,
  };
}

/** A decision version of a deployment; `resource` is its file name when known, else `<key>.dmn`. */
export function decisionDefinitionDto(
  decision: DeployedDecisionRecord,
  deployment: DeploymentRecord,
  resource?: string,
): DecisionDefinitionDto {
  return {
    id: decision.id,
    key: decision.decision_key,
    category: null,
    name: decision.name,
    version: decision.version,
    resource: resource ?? `${decision.decision_key}.dmn`,
    deploymentId: deployment.id,
    decisionRequirementsDefinitionId: null,
    decisionRequirementsDefinitionKey: null,
    tenantId: deployment.tenant_id,
    versionTag: null,
    historyTimeToLive: decision.history_time_to_live,
  };
}

/** A map of DTOs by id, or null when empty (Camunda's answer for a kind the deployment has none of). */
export function byId<T extends { id: string }>(items: readonly T[]): Record<string, T> | null {
  if (items.length === 0) return null;
  const map: Record<string, T> = {};
  for (const item of items) map[item.id] = item;
  return map;
}
