import Type from 'typebox';

/*
 * Path parameters of Camunda's resources. Ids are any text, since Camunda's are; one that is not a
 * weft id names nothing (404).
 */

/** An id in a path. */
export const IdParams = Type.Object({ id: Type.String({ maxLength: 500 }) });

/** A key in a path. */
export const KeyParams = Type.Object({ key: Type.String({ maxLength: 500 }) });

/** A key and a tenant id in a path. */
export const KeyTenantParams = Type.Object({
  key: Type.String({ maxLength: 500 }),
  tenantId: Type.String({ maxLength: 500 }),
});

/** An instance id and a variable name in a path. */
export const VariableParams = Type.Object({
  id: Type.String({ maxLength: 500 }),
  name: Type.String({ maxLength: 255 }),
});
