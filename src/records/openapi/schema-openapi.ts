import type { CompiledSchema } from '../schemas/compiled-schema.js';
import { descriptionPath } from './description-path.js';
import { withErrorStatuses } from './error-statuses.js';
import { archivePaths, searchPaths, timeMachinePaths } from './feature-paths.js';
import type { Json } from './openapi-parts.js';
import { platformPaths, publicRouteRefusals } from './platform-paths.js';
import { recordFields, recordSchema, requestBodies } from './record-components.js';
import { crudPaths, type SchemaComponentNames } from './schema-paths.js';
import { sharedComponents } from './shared-components.js';

function componentName(schema: CompiledSchema): string {
  return schema.path
    .split(/[/-]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/**
 * Every path of one schema: CRUD and query, its description, archive, time machine and search. The last two are
 * served for every schema and answer 400 where the schema lacks them, so they are described for
 * every schema too, saying so.
 */
function schemaPaths(schema: CompiledSchema, names: SchemaComponentNames): Json {
  return {
    ...crudPaths(schema, names),
    ...descriptionPath(schema),
    ...archivePaths(schema, names),
    ...timeMachinePaths(schema, names),
    ...searchPaths(schema, names),
  };
}

/**
 * The service's OpenAPI document: the routes Fastify describes (platform, auth, API keys, role
 * bindings), the hidden platform routes (metrics, this document, audit, org search) and every
 * served schema's endpoints, each operation listing every status its route can answer.
 */
export function buildOpenApi(base: Json, schemas: CompiledSchema[]): Json {
  const paths: Json = { ...(base.paths as Json | undefined), ...platformPaths };
  const components = (base.components as Json | undefined) ?? {};
  const componentSchemas: Json = { ...(components.schemas as Json | undefined), ...sharedComponents };
  for (const schema of schemas) {
    const name = componentName(schema);
    const names = {
      record: `${name}Record`,
      fields: `${name}Fields`,
      create: `${name}Create`,
      patch: `${name}Patch`,
    };
    const bodies = requestBodies(schema);
    componentSchemas[names.record] = recordSchema(schema);
    componentSchemas[names.fields] = recordFields(schema);
    componentSchemas[names.create] = bodies.create;
    componentSchemas[names.patch] = bodies.patch;
    Object.assign(paths, schemaPaths(schema, names));
  }
  for (const [path, methods] of Object.entries(publicRouteRefusals)) {
    const item = { ...(paths[path] as Record<string, Json> | undefined) };
    for (const [method, responses] of Object.entries(methods)) {
      const operation = item[method];
      if (operation)
        item[method] = { ...operation, responses: { ...responses, ...(operation.responses as Json) } };
    }
    if (paths[path]) paths[path] = item;
  }
  return {
    ...base,
    paths: withErrorStatuses(paths),
    components: {
      ...components,
      schemas: componentSchemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
  };
}
