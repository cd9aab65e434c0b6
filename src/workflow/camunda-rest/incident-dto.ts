import type { CamundaIncidentView } from '../engine/store/incidents.js';
import { formatCamundaDate } from './camunda-date.js';

/*
 * weft's open incidents in the shape of Camunda 7's IncidentDto. weft's incidents have no causes,
 * job definitions or annotations: each is its own cause and root cause, and those are null. The
 * execution id and `configuration` are the failed wait's id (an external task's id) or, without
 * one, the incident's id: what PUT /external-task/{id}/retries and /job/{id}/retries take
 * (docs/workflow/camunda7.md, Incidents).
 */

/** Camunda's IncidentDto. */
export interface IncidentDto {
  id: string;
  processDefinitionId: string;
  processInstanceId: string;
  executionId: string;
  incidentTimestamp: string;
  incidentType: 'failedJob' | 'failedExternalTask';
  activityId: string;
  failedActivityId: string;
  causeIncidentId: string;
  rootCauseIncidentId: string;
  configuration: string;
  tenantId: string | null;
  incidentMessage: string;
  jobDefinitionId: null;
  annotation: null;
}

/** An open incident as Camunda shows it. */
export function incidentDto(incident: CamundaIncidentView): IncidentDto {
  return {
    id: incident.id,
    processDefinitionId: incident.definition_id,
    processInstanceId: incident.process_instance_id,
    executionId: incident.configuration,
    incidentTimestamp: formatCamundaDate(incident.created_at),
    incidentType: incident.incident_type,
    activityId: incident.activity_id,
    failedActivityId: incident.activity_id,
    causeIncidentId: incident.id,
    rootCauseIncidentId: incident.id,
    configuration: incident.configuration,
    tenantId: incident.org_slug,
    incidentMessage: incident.message,
    jobDefinitionId: null,
    annotation: null,
  };
}
