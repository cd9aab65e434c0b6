import { RecordsErrors } from '../errors.js';

const maxReason = 2000;

/**
 * Checks the `reason` of a restore, a snapshot or an unarchive: a non-blank string of at most 2000
 * UTF-16 code units (a route schema's `maxLength` would count code points instead).
 */
export function parseReason(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > maxReason)
    throw RecordsErrors.validation('Invalid reason', [
      { field: 'reason', reason: `must be a non-empty string of at most ${maxReason} characters` },
    ]);
  return value;
}
