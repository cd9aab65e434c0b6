import type { FastifyRequest } from 'fastify';
import { WorkflowErrors } from '../../errors.js';
import type { Identity } from './identity.js';

const identities = new WeakMap<FastifyRequest, Identity>();

/** Attaches the authenticated identity to a request. */
export function setIdentity(request: FastifyRequest, identity: Identity): void {
  identities.set(request, identity);
}

/** The identity of an authenticated request; 401 if the route was reached without one. */
export function identityOf(request: FastifyRequest): Identity {
  const identity = identities.get(request);
  if (!identity) throw WorkflowErrors.unauthenticated();
  return identity;
}
