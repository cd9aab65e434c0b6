import Type from 'typebox';
import { Uuid } from '../common-schemas.js';

/** A decision's camunda:historyTimeToLive: kept and shown; weft stores no decision history to purge. */
const HistoryTimeToLive = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
  description:
    "the decision's camunda:historyTimeToLive in days, or null; kept for Camunda clients (weft keeps no history of evaluations)",
});

/** A decision key in a path: the DMN decision's id. */
export const DecisionKeyParams = Type.Object({
  decision_key: Type.String({ minLength: 1, maxLength: 100 }),
});

/** POST /api/v1/decisions body. */
export const DeployBody = Type.Object(
  { xml: Type.String({ minLength: 1, description: 'A DMN 1.1–1.5 document' }) },
  { additionalProperties: false },
);

/** One decision of a deployed file. */
export const DeployedDecision = Type.Object({
  id: Uuid,
  decision_key: Type.String(),
  version: Type.Integer({ minimum: 1 }),
  name: Type.String(),
  history_time_to_live: HistoryTimeToLive,
});

/** GET /api/v1/decisions query. */
export const ListQuery = Type.Object(
  {
    all_versions: Type.Optional(
      Type.Boolean({ default: false, description: 'every version instead of the latest of each key' }),
    ),
  },
  { additionalProperties: false },
);

/** A decision version as listed. */
export const DecisionListItem = Type.Object({
  id: Uuid,
  decision_key: Type.String(),
  version: Type.Integer({ minimum: 1 }),
  name: Type.String(),
  history_time_to_live: HistoryTimeToLive,
  deployed_at: Type.String({ format: 'date-time' }),
});

/** GET /api/v1/decisions/{decision_key}/xml query. */
export const XmlQuery = Type.Object(
  {
    version: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 2147483647, description: 'a pinned version; default latest' }),
    ),
  },
  { additionalProperties: false },
);

/** A decision version with the DMN file it was deployed in. */
export const DecisionXml = Type.Object({
  id: Uuid,
  decision_key: Type.String(),
  version: Type.Integer({ minimum: 1 }),
  name: Type.String(),
  xml: Type.String({ description: 'the whole DMN file as deployed (it may hold other decisions too)' }),
});

/** PATCH /api/v1/decisions/by-key body. */
export const RenameBody = Type.Object(
  {
    decision_key: Type.String({ minLength: 1, maxLength: 100 }),
    name: Type.String({ minLength: 1, maxLength: 500 }),
  },
  { additionalProperties: false },
);

/** POST /api/v1/decisions/{decision_key}/evaluate body. */
export const EvaluateBody = Type.Object(
  {
    variables: Type.Record(Type.String(), Type.Unknown(), {
      description: 'input data by name, and any other variables the expressions read',
    }),
    version: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 2147483647, description: 'a pinned version; default latest' }),
    ),
  },
  { additionalProperties: false },
);

/** The answer of an evaluation. */
export const EvaluationResult = Type.Object({
  decision_key: Type.String(),
  version: Type.Integer({ minimum: 1 }),
  result: Type.Unknown({ description: 'the decision result as JSON (FEEL dates and durations as ISO text)' }),
  matched_rules: Type.Array(
    Type.Object({
      decision_id: Type.String(),
      decision_name: Type.String(),
      rule_id: Type.Union([Type.String(), Type.Null()]),
      rule_index: Type.Integer({ minimum: 0, description: '0-based position in its decision table' }),
    }),
  ),
});
