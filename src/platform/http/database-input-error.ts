import { pgErrorCode } from '../database/pool.js';
import type { FrameworkFailure } from './error-mapping.js';

type Problem = Extract<FrameworkFailure, { kind: 'validation' }>;

/**
 * Classifies a PostgreSQL error that a request's values caused, so the error handler answers 400
 * rather than 500. This is the generic net under every route: a value that passed the route's schema
 * but that PostgreSQL refuses. The classes:
 *
 * - `22xxx` data exception: malformed or out-of-range values (`22P02` invalid text, `22003` numeric
 *   out of range, `22007`/`22008` datetime format or overflow, `22021`/`22P05` bytes or escapes
 *   PostgreSQL cannot store, `2201W`/`2201X` bad LIMIT/OFFSET);
 * - `23503` foreign key violation: the request names something (an organisation…) that does not exist;
 * - `54xxx` program limit exceeded: a value too large to index (a btree entry over ~2,700 bytes, a
 *   tsvector over 1 MB) or a statement too complex.
 *
 * Connection failures are not handled here (503), nor are other codes (500). The database's own
 * message is not passed on: it can name tables and constraints. Looks one `cause` deep, for errors
 * that were wrapped on their way up.
 */
export function databaseInputFailure(error: unknown): Problem | null {
  const code = pgErrorCode(error) ?? pgErrorCode((error as { cause?: unknown } | null)?.cause);
  if (code === undefined || !/^[0-9A-Z]{5}$/.test(code)) return null;
  if (code.startsWith('22')) {
    return problem(
      'A value in the request cannot be stored or compared',
      'is malformed, out of range or not representable in the database',
    );
  }
  if (code === '23503') {
    return problem('The request refers to something that does not exist', 'refers to a missing resource');
  }
  if (code.startsWith('54')) {
    return problem('A value in the request is too large to store or index', 'is too large');
  }
  return null;
}

function problem(message: string, reason: string): Problem {
  return { kind: 'validation', message, errors: [{ path: 'request', message: reason }] };
}
