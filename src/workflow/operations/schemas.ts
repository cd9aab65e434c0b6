import Type from 'typebox';
import { ErrorBody } from '../common-schemas.js';

/** GET /health answer while the database answers. */
export const Health = Type.Object({
  status: Type.Enum(['ok', 'error']),
  database: Type.Enum(['ok', 'unreachable']),
});

/** GET /health answer when the database does not: the service's error body, plus the probe's own two fields. */
export const Unhealthy = Type.Object({
  ...ErrorBody.properties,
  status: Type.Literal('error'),
  database: Type.Literal('unreachable'),
});
