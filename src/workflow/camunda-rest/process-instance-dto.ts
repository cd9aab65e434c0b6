import type { FastifyRequest } from 'fastify';
import type { InstanceRecord } from '../engine/store/process-instances.js';
import { selfLink, type LinkDto } from './links.js';
import { encodeVariables, type TypedVariables } from './variables.js';

/*
 * weft's process instances in the shapes of Camunda 7's ProcessInstanceDto and
 * ProcessInstanceWithVariablesDto. weft has no case instances: `caseInstanceId` is null.
 */

/** Camunda's ProcessInstanceDto. */
export interface ProcessInstanceDto {
  links: LinkDto[];
  id: string;
  definitionId: string;
  definitionKey: string;
  businessKey: string | null;
  caseInstanceId: null;
  ended: boolean;
  suspended: boolean;
  tenantId: string;
}

/** Camunda's ProcessInstanceWithVariablesDto (a start's answer). */
export interface ProcessInstanceWithVariablesDto extends ProcessInstanceDto {
  variables?: TypedVariables;
}

/** An instance with its org's slug. */
export type TenantInstance = InstanceRecord & { tenant_id: string };

/** An instance as Camunda shows it. */
export function processInstanceDto(instance: TenantInstance, request: FastifyRequest): ProcessInstanceDto {
  return {
    links: [selfLink(request, `/process-instance/${instance.id}`)],
    id: instance.id,
    definitionId: instance.definition_id,
    definitionKey: instance.process_key,
    businessKey: instance.business_key,
    caseInstanceId: null,
    ended: instance.ended_at !== null,
    suspended: instance.suspended,
    tenantId: instance.tenant_id,
  };
}

/** A started instance, with its root variables when asked for (`withVariablesInReturn`). */
export function processInstanceWithVariablesDto(
  instance: TenantInstance,
  request: FastifyRequest,
  withVariables: boolean,
): ProcessInstanceWithVariablesDto {
  const dto: ProcessInstanceWithVariablesDto = processInstanceDto(instance, request);
  if (withVariables) dto.variables = encodeVariables(instance.variables);
  return dto;
}
