import type { FastifyRequest } from 'fastify';
import type { Identity } from '../types.js';

const identities = new WeakMap<FastifyRequest, Identity>();

/** Attaches the authenticated identity to a request. */
export function setIdentity(request: FastifyRequest, identity: Identity): void {
  identities.set(request, identity);
}

/** The identity of an authenticated request (routes that are not public always have one). */
export function identityOf(request: FastifyRequest): Identity {
  const identity = identities.get(request);
  if (!identity) throw new Error('identityOf called on an unauthenticated request');
  return identity;
}
