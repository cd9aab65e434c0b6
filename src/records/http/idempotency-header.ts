import type { FastifyRequest } from 'fastify';
import { inexactNumbersOf } from '../../platform/http/exact-json-body.js';
import { RecordsErrors } from '../errors.js';
import { requestHash } from '../../platform/idempotency/request-hash.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { Identity } from '../types.js';

const keyShape = /^[\x21-\x7e]{1,255}$/;

/** An Idempotency-Key and the hash of the request it is bound to. */
export interface IdempotencyClaim {
  key: string;
  hash: string;
}

/**
 * The Idempotency-Key of a write (400 when malformed), bound to the request and to the access it
 * is decided under: the caller's roles, attributes and scope and the schema's access rules. Keys
 * are per actor; a retry whose actor has since gained or lost a role or attribute, or whose
 * schema's rules changed, gets 422 IDEMPOTENCY_CONFLICT instead of a response decided (and
 * masked) under other access, and runs no write.
 */
export function idempotencyOf(
  request: FastifyRequest,
  identity: Identity,
  schema: CompiledSchema,
): IdempotencyClaim | undefined {
  const key = request.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !keyShape.test(key))
    throw RecordsErrors.validation('Invalid Idempotency-Key', [
      { field: 'Idempotency-Key', reason: 'must be 1 to 255 printable ASCII characters' },
    ]);
  const caller = {
    roles: [...new Set(identity.roles)].sort(),
    attributes: identity.attributes,
    scope: identity.scope ?? {},
    access: schema.definition.access,
  };
  // Numbers JSON.parse changed are stored as written: two bodies that differ only there differ.
  const inexact = inexactNumbersOf(request)?.numbers;
  const body = inexact === undefined ? request.body : { body: request.body, exact_numbers: inexact };
  return { key, hash: requestHash(request.method, request.url, body, caller) };
}
