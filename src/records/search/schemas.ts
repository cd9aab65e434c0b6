import Type from 'typebox';
import { RecordsErrors } from '../errors.js';
import { partProblems } from '../http/route-schema.js';

/** `GET /{org}/search?q=&limit=`: the values are checked by the route (`q` text, `parseLimit`). */
export const OrgSearchQuery = Type.Object(
  { q: Type.Optional(Type.Unknown()), limit: Type.Optional(Type.Unknown()) },
  { additionalProperties: false },
);

/** The answer of the org search route to a query string its schema refuses. */
export const orgSearchProblems = partProblems({
  querystring: {
    unknownMember: (name) =>
      RecordsErrors.validation(`Unknown parameter ${name.slice(0, 100)}`, [
        { field: name.slice(0, 100), reason: 'org search takes q and limit' },
      ]),
  },
});
