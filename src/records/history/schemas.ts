import Type from 'typebox';
import { bodyNotObject, partProblems, unknownParameter, unknownProperty } from '../http/route-schema.js';

const anyValue = () => Type.Optional(Type.Unknown());
const restoreMembers = ['at', 'reason'] as const;
const diffMembers = ['from', 'to'] as const;

/**
 * `POST /{id}/restore` and `POST /history/snapshot`: `{at, reason}` and nothing else. The values
 * are checked by `parseInstant` and `parseReason`, in that order.
 */
export const InstantAndReason = Type.Object(
  { at: anyValue(), reason: anyValue() },
  { additionalProperties: false },
);

/** `GET /{id}/diff?from=&to=`: the two instants are checked by `parseInstant`. */
export const DiffQuery = Type.Object({ from: anyValue(), to: anyValue() }, { additionalProperties: false });

/** The answers of the restore and snapshot routes to a body their schema refuses. */
export const instantAndReasonProblems = partProblems({
  body: { notObject: bodyNotObject, unknownMember: unknownProperty(restoreMembers) },
});

/** The answer of the diff route to a query string its schema refuses. */
export const diffQueryProblems = partProblems({
  querystring: { unknownMember: unknownParameter(diffMembers) },
});
