import Type, { type TSchema } from 'typebox';
import { MAX_HISTORY_TIME_TO_LIVE } from '../engine/model/index.js';

/*
 * Request bodies of Camunda 7's process-definition endpoints. Fields weft does not know are
 * ignored; optional fields may be null. Variables are checked by the codec (variables.ts).
 */

const nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

/** POST /process-definition/…/start body. */
export const StartBody = Type.Object({
  variables: nullable(Type.Record(Type.String({ maxLength: 255 }), Type.Unknown())),
  businessKey: nullable(Type.String({ maxLength: 255 })),
  caseInstanceId: nullable(Type.String()),
  withVariablesInReturn: nullable(Type.Boolean()),
  skipCustomListeners: nullable(Type.Boolean()),
  skipIoMappings: nullable(Type.Boolean()),
  startInstructions: nullable(Type.Array(Type.Unknown(), { maxItems: 100 })),
});

/** PUT /process-definition/…/history-time-to-live body: days, or null (absent is null, as in Camunda). */
export const HistoryTimeToLiveBody = Type.Object({
  historyTimeToLive: nullable(Type.Integer({ minimum: 0, maximum: MAX_HISTORY_TIME_TO_LIVE })),
});
