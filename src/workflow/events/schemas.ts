import Type from 'typebox';
import { Uuid } from '../common-schemas.js';

const JsonObject = Type.Record(Type.String({ maxLength: 255 }), Type.Unknown());
const Name = Type.String({ minLength: 1, maxLength: 255 });
/** Thirty days: the longest a message may wait in the buffer. */
const MAX_TTL_MS = 30 * 24 * 3600 * 1000;

/** POST /api/v1/messages body. */
export const PublishMessageBody = Type.Object(
  {
    org_id: Uuid,
    message_name: Name,
    correlation_key: Type.Optional(Type.String({ maxLength: 255 })),
    variables: Type.Optional(JsonObject),
    time_to_live_ms: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_TTL_MS,
        description: 'When nothing matches, keep the message this long for the first wait to open',
      }),
    ),
  },
  { additionalProperties: false },
);

/** POST /api/v1/messages answer: the instances started and correlated, or the buffered message. */
export const PublishMessageResponse = Type.Object({
  started: Type.Array(Uuid),
  correlated: Type.Array(Uuid),
  buffered: Type.Union([
    Type.Object({ id: Uuid, expires_at: Type.String({ format: 'date-time' }) }),
    Type.Null(),
  ]),
});

/** POST /api/v1/signals body. */
export const BroadcastSignalBody = Type.Object(
  { org_id: Uuid, signal_name: Name, variables: Type.Optional(JsonObject) },
  { additionalProperties: false },
);

/** POST /api/v1/signals answer: the instances started and the waits delivered to. */
export const BroadcastSignalResponse = Type.Object({
  started: Type.Array(Uuid),
  delivered: Type.Array(Uuid),
});
