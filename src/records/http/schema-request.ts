import type { FastifyRequest } from 'fastify';
import type { AccessCheck } from '../auth/access-check.js';
import { identityOf } from '../auth/request-identity.js';
import { RecordsErrors } from '../errors.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import { uuidPattern } from '../schemas/identifiers.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';
import type { Operation } from '../types.js';
import { markOperation } from './operation-metrics.js';

/** Route prefix of a schema's endpoints. */
export const schemaBase = '/api/:org/:app/:domain/:object/:version';

interface SchemaParams {
  org: string;
  app: string;
  domain: string;
  object: string;
  version: string;
  id?: string;
}

/** Resolves and authorises the schema of a request under `schemaBase` (as the CRUD routes do). */
export function schemaRequest(registry: SchemaRegistry, access: AccessCheck) {
  return {
    prepare: (request: FastifyRequest, operation: Operation, label: string): CompiledSchema => {
      const p = request.params as SchemaParams;
      const schema = registry.resolve(`${p.org}/${p.app}/${p.domain}/${p.object}/${p.version}`);
      markOperation(request, schema.path, label);
      access.authorize(identityOf(request), schema, operation);
      return schema;
    },
    recordId: (request: FastifyRequest, schema: CompiledSchema): string => {
      const id = (request.params as SchemaParams).id ?? '';
      if (!uuidPattern.test(id)) throw RecordsErrors.entityNotFound(schema.path, id.slice(0, 100));
      return id.toLowerCase();
    },
  };
}
