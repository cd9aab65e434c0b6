import Type from 'typebox';
import { Uuid } from '../common-schemas.js';
import { PlanBody } from '../instance-migration/schemas.js';
import { ModificationBody } from '../instances/schemas.js';
import { MAX_BATCH_INSTANCE_IDS } from './batch-service.js';

const InstanceState = Type.Enum(['running', 'completed', 'cancelled', 'incident', 'terminated']);

/** The filters of GET /api/v1/process-instances, selecting a batch's instances. */
export const InstanceFilterBody = Type.Object(
  {
    definition_id: Type.Optional(Uuid),
    process_key: Type.Optional(Type.String({ maxLength: 255 })),
    state: Type.Optional(InstanceState),
    business_key: Type.Optional(Type.String({ maxLength: 255 })),
  },
  { additionalProperties: false },
);

/** POST /api/v1/batches body. */
export const CreateBatchBody = Type.Object(
  {
    org_id: Uuid,
    type: Type.String({
      minLength: 1,
      maxLength: 64,
      examples: ['retryIncidents', 'cancel', 'suspend', 'resume', 'modify', 'migrate'],
    }),
    instance_ids: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: MAX_BATCH_INSTANCE_IDS })),
    filter: Type.Optional(InstanceFilterBody),
    /** The plan of a `migrate` batch. */
    plan: Type.Optional(PlanBody),
    /** The modification of a `modify` batch, as POST /api/v1/process-instances/{id}/modification takes it. */
    modification: Type.Optional(ModificationBody),
  },
  { additionalProperties: false },
);

/** A batch. */
export const Batch = Type.Object({
  id: Uuid,
  org_id: Uuid,
  type: Type.String(),
  state: Type.Enum(['running', 'completed']),
  total: Type.Integer(),
  done: Type.Integer(),
  failed: Type.Integer(),
  failures: Type.Array(Type.Object({ instance_id: Uuid, reason: Type.String() })),
  created_at: Type.String({ format: 'date-time' }),
  finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

/** A batch id in a path. */
export const BatchIdParams = Type.Object({ id: Uuid });

/** GET /api/v1/batches query. */
export const ListBatchesQuery = Type.Object({
  org_id: Uuid,
  limit: Type.Optional(Type.Integer({ description: 'default 100, clamped to 1..500' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 })),
});

/** POST /api/v1/migrations/execute body: one instance migrates at once, more become a `migrate` batch. */
export const ExecuteMigrationBody = Type.Object(
  {
    plan: PlanBody,
    instance_ids: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: MAX_BATCH_INSTANCE_IDS })),
    filter: Type.Optional(InstanceFilterBody),
  },
  { additionalProperties: false },
);
