/**
 * Parses what the user typed as a JSON object (blank is `{}`); throws an Error whose message says
 * what is wrong, to show beside the field.
 */
export function parseJsonObject(text: string, field: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (failure) {
    const reason = failure instanceof Error ? failure.message : String(failure);
    throw new Error(`${field} is not valid JSON: ${reason}`, { cause: failure });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`${field} must be a JSON object, like {"name": "value"}`);
  }
  return value as Record<string, unknown>;
}

/** A value as indented JSON, for a `<pre>`. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'undefined';
}
