import type { JsonValue } from '../engine/runtime/index.js';

/** What replaces a secret value wherever it would leave the connector. */
export const REDACTED = '***';

/**
 * Replaces every occurrence of the secret values of one request (as they are, URL-encoded and
 * JSON-escaped, the forms the connector writes them in) with `***`. Longest first, so a value that
 * contains another is replaced whole.
 */
export class Redactor {
  private readonly needles: string[];

  constructor(values: Iterable<string>) {
    const needles = new Set<string>();
    for (const value of values) {
      if (value === '') continue;
      needles.add(value);
      needles.add(encodeURIComponent(value));
      needles.add(JSON.stringify(value).slice(1, -1));
    }
    this.needles = [...needles].sort((a, b) => b.length - a.length);
  }

  /** True when there is nothing to redact. */
  get empty(): boolean {
    return this.needles.length === 0;
  }

  /** `text` with every secret replaced. */
  text(text: string): string {
    let out = text;
    for (const needle of this.needles) out = out.split(needle).join(REDACTED);
    return out;
  }

  /** A JSON value with every string (and object key) redacted. */
  json(value: JsonValue): JsonValue {
    if (this.empty) return value;
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.json(item));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [this.text(key), this.json(item)]),
      );
    }
    return value;
  }
}
