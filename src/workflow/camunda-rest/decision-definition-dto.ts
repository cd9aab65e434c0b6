import type { DecisionVersionView } from '../decisions/decision-repository.js';

/*
 * weft's decision versions in the shape of Camunda 7's DecisionDefinitionDto. weft keeps no
 * category (the DMN namespace), resource name, requirements graph or version tag: those are null
 * (docs/workflow/camunda7.md, Decisions). `historyTimeToLive` is the decision's, kept for clients:
 * weft stores no history of evaluations for it to purge.
 */

/** Camunda's DecisionDefinitionDto. */
export interface DecisionDefinitionDto {
  id: string;
  key: string;
  category: null;
  name: string;
  version: number;
  resource: null;
  deploymentId: string;
  decisionRequirementsDefinitionId: null;
  decisionRequirementsDefinitionKey: null;
  tenantId: string | null;
  versionTag: null;
  historyTimeToLive: number | null;
}

/** A decision version as Camunda shows it. */
export function decisionDefinitionDto(version: DecisionVersionView): DecisionDefinitionDto {
  return {
    id: version.id,
    key: version.decision_key,
    category: null,
    name: version.name,
    version: version.version,
    resource: null,
    deploymentId: version.deployment_id,
    decisionRequirementsDefinitionId: null,
    decisionRequirementsDefinitionKey: null,
    tenantId: version.org_slug,
    versionTag: null,
    historyTimeToLive: version.history_time_to_live,
  };
}
