import Type from 'typebox';
import { Uuid } from '../common-schemas.js';

const ElementId = Type.String({ minLength: 1, maxLength: 255 });

/** A migration plan: two versions of a process and, optionally, the element mapping. */
export const PlanBody = Type.Object(
  {
    source_definition_id: Uuid,
    target_definition_id: Uuid,
    instructions: Type.Optional(
      Type.Array(Type.Object({ source: ElementId, target: ElementId }, { additionalProperties: false }), {
        maxItems: 10_000,
      }),
    ),
  },
  { additionalProperties: false },
);

/** A generated plan. */
export const Plan = Type.Object({
  source_definition_id: Uuid,
  target_definition_id: Uuid,
  instructions: Type.Array(Type.Object({ source: Type.String(), target: Type.String() })),
});

/** One problem of a plan or of an instance under it. */
export const MigrationProblem = Type.Object({
  element_id: Type.Union([Type.String(), Type.Null()]),
  message: Type.String(),
  instance_ids: Type.Optional(Type.Array(Uuid)),
});

/** POST /api/v1/migrations/validate body. */
export const ValidateBody = Type.Object(
  {
    plan: PlanBody,
    instance_ids: Type.Optional(Type.Array(Uuid, { maxItems: 1000 })),
  },
  { additionalProperties: false },
);

/** POST /api/v1/migrations/validate answer. */
export const Validation = Type.Object({ valid: Type.Boolean(), problems: Type.Array(MigrationProblem) });
