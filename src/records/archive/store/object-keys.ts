// A segment may not start with a dot: that rules out `.` and `..`, and leaves names starting with
// a dot free for the stores' own temporary files.
const segmentPattern = /^[A-Za-z0-9_=-][A-Za-z0-9._=-]*$/;
const prefixPattern = /^[A-Za-z0-9._=/-]*$/;

/**
 * Checks an object key: a relative, slash-separated path of segments made of `[A-Za-z0-9._=-]`,
 * none empty or starting with a dot (so no `.`, `..`, absolute path or backslash). Schema paths
 * (`org/app/domain/object/v1`) are valid keys. Throws a TypeError otherwise.
 */
export function assertValidKey(key: string): void {
  if (
    typeof key !== 'string' ||
    key === '' ||
    !key.split('/').every((segment) => segmentPattern.test(segment))
  )
    throw new TypeError(
      `Invalid object key ${JSON.stringify(key)}: expected slash-separated segments of [A-Za-z0-9._=-] not starting with a dot`,
    );
}

/**
 * Checks a list prefix: the start of a key (any string of key characters, `''` for all keys) whose
 * complete segments are valid. Throws a TypeError otherwise.
 */
export function assertValidPrefix(prefix: string): void {
  const complete = prefix.split('/').slice(0, -1);
  const last = prefix.split('/').at(-1) ?? '';
  if (
    typeof prefix !== 'string' ||
    !prefixPattern.test(prefix) ||
    !complete.every((segment) => segmentPattern.test(segment)) ||
    last.startsWith('.')
  )
    throw new TypeError(`Invalid object key prefix ${JSON.stringify(prefix)}`);
}
