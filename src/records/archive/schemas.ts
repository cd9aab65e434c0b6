import Type from 'typebox';
import { RecordsErrors } from '../errors.js';
import { bodyNotObject, partProblems, unknownParameter, unknownProperty } from '../http/route-schema.js';

const anyValue = () => Type.Optional(Type.Unknown());
const queryMembers = ['where', 'select', 'limit', 'cursor'] as const;

/** `POST /archive/query`: the query DSL's `where`, `select`, `limit` and `cursor`, checked by `parseQueryBody`. */
export const ArchiveQueryBody = Type.Object(
  { where: anyValue(), select: anyValue(), limit: anyValue(), cursor: anyValue() },
  { additionalProperties: false },
);

/** `GET /{id}/archive?version=N`: the version is checked by the route (a positive integer). */
export const ArchiveReadQuery = Type.Object({ version: anyValue() }, { additionalProperties: false });

/** `POST /{id}/unarchive`: `{reason}`, checked by `parseReason`. */
export const UnarchiveBody = Type.Object({ reason: anyValue() }, { additionalProperties: false });

/** The answer of the archive query route to a body its schema refuses. */
export const archiveQueryProblems = partProblems({
  body: {
    notObject: bodyNotObject,
    unknownMember: (name) =>
      RecordsErrors.validation('Invalid query', [
        { field: name.slice(0, 100), reason: `is not one of ${queryMembers.join(', ')}` },
      ]),
  },
});

/** The answer of the archive read route to a query string its schema refuses. */
export const archiveReadProblems = partProblems({
  querystring: { unknownMember: unknownParameter(['version']) },
});

/** The answer of the unarchive route to a body its schema refuses. */
export const unarchiveProblems = partProblems({
  body: { notObject: bodyNotObject, unknownMember: unknownProperty(['reason']) },
});
