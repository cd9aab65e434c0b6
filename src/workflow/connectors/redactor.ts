import type { JsonValue } from '../engine/runtime/index.js';
import { secretEncodings, wrapperEncodings } from './secret-encodings.js';

/** What replaces a secret value wherever it would leave the connector. */
export const REDACTED = '***';

/**
 * Replaces every occurrence of the secret values of one request, in every form a remote could echo
 * them (see secret-encodings.ts: as they are, URL-encoded, JSON-escaped to any depth, base64), with
 * `***`. The forms are computed once per request and searched longest first; every character that
 * any occurrence covers is redacted, so overlapping forms (or two secrets sharing text) leave no
 * fragment of either behind.
 */
export class Redactor {
  private readonly values: readonly string[];
  /** The forms of the values alone, kept so that `including` does not compute them again. */
  private readonly valueForms: ReadonlySet<string>;
  private readonly needles: readonly string[];

  /**
   * `values`: the secret values of the request; `wrappers`: whole texts they were sent inside (see
   * `including`); `valueForms`: the forms of `values` when they are already known.
   */
  constructor(values: Iterable<string>, wrappers: Iterable<string> = [], valueForms?: ReadonlySet<string>) {
    this.values = [...new Set(values)].filter((value) => value !== '');
    const forms = valueForms ?? new Set(this.values.flatMap((value) => [...secretEncodings(value)]));
    this.valueForms = forms;
    const needles = new Set(forms);
    for (const wrapper of wrappers) for (const form of wrapperEncodings(wrapper)) needles.add(form);
    this.needles = [...needles].sort((a, b) => b.length - a.length);
  }

  /** True when there is nothing to redact. */
  get empty(): boolean {
    return this.needles.length === 0;
  }

  /** True when `text` holds one of the secret values as it is. */
  carriesSecret(text: string): boolean {
    return this.values.some((value) => text.includes(value));
  }

  /**
   * A redactor that also knows the base64 forms of `wrappers`: whole texts the secrets were sent
   * inside (header values), which a remote may echo encoded in one piece.
   */
  including(wrappers: Iterable<string>): Redactor {
    const carriers = [...wrappers].filter((wrapper) => this.carriesSecret(wrapper));
    return new Redactor(this.values, carriers, this.valueForms);
  }

  /** `text` with every secret replaced. */
  text(text: string): string {
    if (this.needles.length === 0 || text === '') return text;
    const spans: [number, number][] = [];
    for (const needle of this.needles) {
      if (needle.length > text.length) continue;
      for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
        spans.push([at, at + needle.length]);
      }
    }
    if (spans.length === 0) return text;
    spans.sort((a, b) => a[0] - b[0]);
    let out = '';
    let written = 0;
    let [start, end] = spans[0] as [number, number];
    for (const [from, to] of spans) {
      if (from <= end) {
        end = Math.max(end, to);
        continue;
      }
      out += text.slice(written, start) + REDACTED;
      written = end;
      [start, end] = [from, to];
    }
    return out + text.slice(written, start) + REDACTED + text.slice(end);
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
