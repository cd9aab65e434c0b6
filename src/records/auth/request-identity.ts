import type { FastifyRequest } from 'fastify';
import type { HttpServer } from '../../platform/http/http-server.js';
import type { Identity } from '../types.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller of a records request (null on public routes). */
    recordsIdentity: Identity | null;
  }
}

/** Declares the identity slot on every request (a decoration keeps the request's shape stable). */
export function decorateIdentity(app: HttpServer): void {
  app.decorateRequest('recordsIdentity', null);
}

/** Attaches the authenticated identity to a request. */
export function setIdentity(request: FastifyRequest, identity: Identity): void {
  request.recordsIdentity = identity;
}

/** The identity of an authenticated request (routes that are not public always have one). */
export function identityOf(request: FastifyRequest): Identity {
  const identity = request.recordsIdentity;
  if (!identity) throw new Error('identityOf called on an unauthenticated request');
  return identity;
}
