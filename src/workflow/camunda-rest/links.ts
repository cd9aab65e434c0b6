import type { FastifyRequest } from 'fastify';

/** One of Camunda's `links` entries (HATEOAS), as its DTOs carry them. */
export interface LinkDto {
  method: string;
  href: string;
  rel: string;
}

// The prefix registerCamundaRest mounts these routes under (register.ts).
const prefix = '/engine-rest';

/** The `self` link of a resource at `path` (below `/engine-rest`), absolute as Camunda writes it. */
export function selfLink(request: FastifyRequest, path: string): LinkDto {
  return { method: 'GET', href: `${request.protocol}://${request.host}${prefix}${path}`, rel: 'self' };
}
