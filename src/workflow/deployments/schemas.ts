import Type from 'typebox';
import { Uuid } from '../common-schemas.js';
import { MAX_HISTORY_TIME_TO_LIVE } from '../engine/model/index.js';

/** Days an instance's history is kept after its end; null: the global retention. */
const HistoryTimeToLive = Type.Union(
  [Type.Integer({ minimum: 0, maximum: MAX_HISTORY_TIME_TO_LIVE }), Type.Null()],
  {
    description:
      "days the history of the version's instances is kept after they end (camunda:historyTimeToLive); null: WORKFLOW_HISTORY_RETENTION_DAYS",
  },
);

/** A deployed version or draft of a process, as the API shows it. */
export const ProcessDefinition = Type.Object({
  id: Uuid,
  process_key: Type.String(),
  version: Type.Union([Type.Integer(), Type.Null()], { description: 'null for a draft' }),
  name: Type.String(),
  disabled: Type.Boolean(),
  /** Suspended by an operator (POST /api/v1/deployments/{id}/suspend): starts no instance. */
  suspended: Type.Boolean(),
  history_time_to_live: HistoryTimeToLive,
  draft: Type.Boolean(),
  deployed_at: Type.String({ format: 'date-time' }),
  process_group_id: Uuid,
});

/** A version of a Camunda Form, as a deployment answers it. */
export const FormVersion = Type.Object({
  id: Uuid,
  form_key: Type.String({ description: "the form's key: the `id` of its JSON, which camunda:formRef names" }),
  version: Type.Integer(),
  resource_name: Type.String(),
  deployed_at: Type.String({ format: 'date-time' }),
});

/** POST /api/v1/deployments answer: the first process of the document, with all of them. */
export const DeployResponse = Type.Object({
  ...ProcessDefinition.properties,
  definitions: Type.Array(ProcessDefinition, {
    description: 'every process of the document, the first one above',
  }),
  forms: Type.Array(FormVersion, {
    description: 'the forms deployed with it: new versions, or the unchanged latest version of their key',
  }),
});

/** POST /api/v1/deployments body. */
export const DeployBody = Type.Object(
  {
    org_id: Uuid,
    process_group_id: Uuid,
    xml: Type.String({ minLength: 1 }),
    draft: Type.Optional(Type.Boolean()),
    forms: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({
              minLength: 1,
              maxLength: 1000,
              description:
                'the resource name (camunda-forms:deployment:<name> finds the form by it), e.g. invoice.form',
            }),
            schema: Type.Record(Type.String(), Type.Unknown(), {
              description:
                "the form-js JSON of a Camunda Form (a .form file); its string `id` is the form's key",
            }),
          },
          { additionalProperties: false },
        ),
        {
          maxItems: 50,
          description: 'Camunda Forms deployed with the document, in the same transaction (not with a draft)',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

/** GET /api/v1/deployments query. */
export const ListDeploymentsQuery = Type.Object({
  org_id: Uuid,
  process_key: Type.Optional(Type.String({ maxLength: 255 })),
});

/** A deployment id in a path. */
export const DeploymentIdParams = Type.Object({ id: Uuid });

/** GET /api/v1/deployments/{id} answer: one version with its XML. */
export const ProcessDefinitionWithXml = Type.Object({ ...ProcessDefinition.properties, xml: Type.String() });

/** PATCH /api/v1/deployments/{id}/disabled body. */
export const SetDisabledBody = Type.Object({ disabled: Type.Boolean() }, { additionalProperties: false });

/** PATCH /api/v1/deployments/{id}/history-time-to-live body. */
export const SetHistoryTimeToLiveBody = Type.Object(
  { history_time_to_live: HistoryTimeToLive },
  { additionalProperties: false },
);

/** PATCH /api/v1/deployments/by-key body. */
export const RenameByKeyBody = Type.Object(
  {
    org_id: Uuid,
    process_group_id: Uuid,
    process_key: Type.String({ minLength: 1, maxLength: 255 }),
    name: Type.String({ minLength: 1, maxLength: 255 }),
  },
  { additionalProperties: false },
);

/** How many instances of a version are in each state. */
export const InstanceCounts = Type.Object({
  running: Type.Integer(),
  incident: Type.Integer(),
  completed: Type.Integer(),
  cancelled: Type.Integer(),
  terminated: Type.Integer(),
});

/** GET /api/v1/deployments/statistics answer item: one version's instance counts. */
export const VersionInstanceCounts = Type.Object({ definition_id: Uuid, ...InstanceCounts.properties });

/** GET /api/v1/deployments/{id}/statistics answer. */
export const DeploymentStatistics = Type.Object({
  instances: InstanceCounts,
  elements: Type.Array(
    Type.Object({
      element_id: Type.String(),
      active: Type.Integer({ description: 'tokens waiting, joining or failed there' }),
      incidents: Type.Integer({ description: 'open incidents raised there' }),
    }),
    { description: 'elements with a live token or an open incident, over running and incident instances' },
  ),
});
