import type { FieldDefinition, Identity, Operation, SchemaDefinition } from '../types.js';

/** One field as `GET /{path}/_schema` describes it: its definition and what the caller may do with it. */
export interface FieldDescription extends FieldDefinition {
  /** False when a field read rule hides its value from the caller (it reads as null). */
  readable: boolean;
  /** False when a field write rule refuses it in the caller's writes (403 FIELD_WRITE_DENIED). */
  writable: boolean;
}

/** What `GET /{path}/_schema` answers: the schema's definition as the caller sees it. */
export interface SchemaDescription {
  path: string;
  displayName: string;
  description: string;
  timeMachine: boolean;
  searchTier: number;
  fields: FieldDescription[];
  /** The operations route RBAC lets the caller perform. */
  operations: Record<Operation, boolean>;
  /** The list filter operators (`filter[f][op]`) and query DSL operators, for forms built from this. */
  filterOperators: string[];
  queryOperators: string[];
}

const operations: Operation[] = ['create', 'read', 'update', 'delete'];
const allowedBy = (roles: readonly string[] | undefined, held: readonly string[]) =>
  roles === undefined || roles.some((role) => held.includes(role));

/**
 * Describes `definition` for `identity`: every field with its type and constraints, whether the
 * caller may read and write it (field access rules), and the operations its roles allow. The
 * access rules themselves (role lists, conditions) are not revealed, only their outcome.
 */
export function describeSchema(definition: SchemaDefinition, identity: Identity): SchemaDescription {
  const { access } = definition;
  const rules = new Map(access.fieldAccess.map((rule) => [rule.field, rule]));
  return {
    path: definition.path,
    displayName: definition.displayName,
    description: definition.description,
    timeMachine: definition.timeMachine,
    searchTier: definition.searchTier,
    fields: definition.fields.map((field) => ({
      ...field,
      readable: allowedBy(rules.get(field.name)?.read, identity.roles),
      writable: allowedBy(rules.get(field.name)?.write, identity.roles),
    })),
    operations: Object.fromEntries(
      operations.map((operation) => [
        operation,
        access.roles === undefined || allowedBy(access.roles[operation] ?? [], identity.roles),
      ]),
    ) as Record<Operation, boolean>,
    filterOperators: ['eq', 'gt', 'lt', 'gte', 'lte', 'ne', 'in', 'exists'],
    queryOperators: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists', 'contains', 'startsWith'],
  };
}
