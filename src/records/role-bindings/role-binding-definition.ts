import Type, { type Static } from 'typebox';
import Value from 'typebox/value';
import type { DocumentProblem } from '../schemas/validate-definition.js';

const specSchema = Type.Object(
  {
    actor: Type.String({ minLength: 1, maxLength: 512 }),
    roles: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 200 }),
    expiryDate: Type.Optional(Type.String({ maxLength: 64 })),
    scope: Type.Optional(Type.Record(Type.String({ maxLength: 100 }), Type.Unknown())),
    attributes: Type.Optional(Type.Record(Type.String({ maxLength: 100 }), Type.Unknown())),
  },
  { additionalProperties: false },
);

/** `spec` of a `kind: RoleBinding`, validated. */
export type RoleBindingSpec = Static<typeof specSchema>;

/** A role binding as stored and cached: who, which roles, until when, with which scope and attributes. */
export interface RoleBinding {
  name: string;
  actor: string;
  roles: string[];
  /** Expiry in ms since the epoch; null for none. An expired binding grants nothing. */
  expiresAt: number | null;
  scope: Record<string, unknown>;
  attributes: Record<string, unknown>;
}

/** Validates the `spec` of a `kind: RoleBinding` (`expiryDate` must be an ISO 8601 timestamp). */
export function validateRoleBinding(
  name: string,
  spec: unknown,
): { ok: true; binding: RoleBinding } | { ok: false; problems: DocumentProblem[] } {
  if (!Value.Check(specSchema, spec)) {
    const problems = [...Value.Errors(specSchema, spec)]
      .slice(0, 20)
      .map((error) => ({ path: `spec${error.instancePath.replaceAll('/', '.')}`, reason: error.message }));
    return { ok: false, problems };
  }
  let expiresAt: number | null = null;
  if (spec.expiryDate !== undefined) {
    expiresAt = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(
      spec.expiryDate,
    )
      ? Date.parse(spec.expiryDate)
      : NaN;
    if (Number.isNaN(expiresAt))
      return { ok: false, problems: [{ path: 'spec.expiryDate', reason: 'must be an ISO 8601 timestamp' }] };
  }
  return {
    ok: true,
    binding: {
      name,
      actor: spec.actor,
      roles: spec.roles,
      expiresAt,
      scope: spec.scope ?? {},
      attributes: spec.attributes ?? {},
    },
  };
}
