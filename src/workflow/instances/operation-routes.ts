import type { Static } from 'typebox';
import type { HttpServer } from '../../platform/http/http-server.js';
import { identityOf } from '../identity/auth/request-identity.js';
import { authenticatedErrors, bearerSecurity, ErrorBody } from '../common-schemas.js';
import type { ModificationInstruction as EngineInstruction, Variables } from '../engine/runtime/index.js';
import { WorkflowErrors } from '../errors.js';
import type { ModificationRequest } from './instance-operations.js';
import type { InstanceService } from './instance-service.js';
import {
  DefinitionSuspension,
  Instance,
  InstanceIdParams,
  ModificationBody,
  type ModificationInstruction,
} from './schemas.js';

const errors = { ...authenticatedErrors, 404: ErrorBody, 409: ErrorBody };

/**
 * Operations on running instances (docs/workflow/operations.md), all for the Operator role:
 * suspend and resume an instance or a whole deployed version, and modify an instance's tokens.
 */
export function registerOperationRoutes(app: HttpServer, instances: InstanceService): void {
  const tags = ['process-instances'];
  const security = bearerSecurity;
  const instanceRoute = (summary: string) => ({
    schema: { tags, security, summary, params: InstanceIdParams, response: { 200: Instance, ...errors } },
  });
  const definitionRoute = (summary: string) => ({
    schema: {
      tags: ['deployments'],
      security,
      summary,
      params: InstanceIdParams,
      response: { 200: DefinitionSuspension, ...errors },
    },
  });

  app.post(
    '/api/v1/process-instances/:id/suspend',
    instanceRoute('Suspend a running instance: its work waits until it is resumed (Operator)'),
    (request) => instances.suspend(identityOf(request), request.params.id),
  );

  app.post(
    '/api/v1/process-instances/:id/resume',
    instanceRoute('Resume a suspended instance (Operator)'),
    (request) => instances.resume(identityOf(request), request.params.id),
  );

  app.post(
    '/api/v1/process-instances/:id/modification',
    {
      schema: {
        tags,
        security,
        summary: "Start and cancel an instance's tokens in one transaction (Operator)",
        params: InstanceIdParams,
        body: ModificationBody,
        response: { 200: Instance, ...errors },
      },
    },
    (request) => instances.modify(identityOf(request), request.params.id, toModification(request.body)),
  );

  app.post(
    '/api/v1/deployments/:id/suspend',
    definitionRoute('Suspend a version and its running instances; it starts no instance (Operator)'),
    (request) => instances.suspendDefinition(identityOf(request), request.params.id),
  );

  app.post(
    '/api/v1/deployments/:id/resume',
    definitionRoute('Resume a suspended version and its suspended running instances (Operator)'),
    (request) => instances.resumeDefinition(identityOf(request), request.params.id),
  );
}

/** The engine's instructions of a request body; 400 listing every instruction that lacks a field. */
export function toModification(body: Static<typeof ModificationBody>): ModificationRequest {
  const problems: string[] = [];
  const instructions = body.instructions.flatMap((instruction, index): EngineInstruction[] => {
    const converted = toInstruction(instruction);
    if (typeof converted === 'string') {
      problems.push(`instruction ${index}: ${converted}`);
      return [];
    }
    return [converted];
  });
  if (problems.length > 0) throw WorkflowErrors.validation('The modification is invalid', { problems });
  return {
    instructions,
    variables: body.variables as Variables | undefined,
    skipIoMappings: body.skip_io_mappings,
  };
}

function toInstruction(instruction: Static<typeof ModificationInstruction>): EngineInstruction | string {
  const { type, activity_id: activityId, token_id: tokenId, ancestor_scope_id: ancestor } = instruction;
  if (type === 'cancelToken') {
    if (tokenId === undefined) return 'cancelToken needs token_id';
    if (activityId !== undefined || ancestor !== undefined) return 'cancelToken takes only token_id';
    return { type, tokenId };
  }
  if (activityId === undefined) return `${type} needs activity_id`;
  if (tokenId !== undefined) return `${type} does not take token_id`;
  if (type === 'cancelActivity') {
    if (ancestor !== undefined) return 'cancelActivity does not take ancestor_scope_id';
    return { type, activityId };
  }
  return ancestor === undefined ? { type, activityId } : { type, activityId, ancestorScopeId: ancestor };
}
