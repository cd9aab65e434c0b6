import type { Static } from 'typebox';
import type { ModificationInstruction as EngineInstruction, Variables } from '../engine/runtime/index.js';
import { WorkflowErrors } from '../errors.js';
import type { ModificationRequest } from './instance-operations.js';
import type { ModificationBody, ModificationInstruction } from './schemas.js';

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
