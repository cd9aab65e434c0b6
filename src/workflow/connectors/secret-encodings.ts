/**
 * The forms in which a secret value can come back from a remote that echoes what it was sent:
 * as it is, URL-encoded, JSON-string-escaped (repeatedly: a body echoed inside a JSON string inside
 * a JSON string…), base64 of the value, of the value inside a larger text, and of wrappers such as
 * `Bearer <value>` or the whole `Authorization` header value.
 */

/** How many times repeated JSON-string escaping is followed (each level doubles the backslashes). */
export const MAX_JSON_DEPTH = 8;

/**
 * Forms longer than this are not searched for: each escaping level can double a value full of
 * quotes, and the forms of one request are held in memory while it runs.
 */
export const MAX_FORM_LENGTH = 256 * 1024;

/**
 * The shortest base64 run searched for when the value sits at an unknown offset inside a larger
 * base64 text: shorter runs would redact unrelated base64 (it is not a leak, the value is that short).
 */
export const MIN_BASE64_RUN = 8;

/** Derived texts (a decoded base64 secret, its password part) shorter than this are not searched for. */
const MIN_DERIVED_LENGTH = 4;

/** Words a credential is commonly prefixed with in an `Authorization` header. */
const AUTH_SCHEMES = ['Bearer ', 'Basic ', 'Token ', 'Bot ', 'Digest '];

/** One level of JSON string escaping, as `JSON.stringify` writes it (without the quotes). */
function jsonEscape(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** One level of JSON string escaping as ASCII-only encoders write it (Python, PHP): `\uXXXX`, `\/`. */
function asciiJsonEscape(text: string): string {
  return jsonEscape(text)
    .replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/\//g, '\\/');
}

/** Percent-encoding of every byte but RFC 3986's unreserved characters. */
function strictUriEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** `application/x-www-form-urlencoded`, as `URLSearchParams` writes a value. */
function formEncode(text: string): string {
  return new URLSearchParams({ v: text }).toString().slice(2);
}

/** The URL forms of `text`: component, strict, form, twice encoded; each also with lower-case hex. */
function urlForms(text: string): string[] {
  let forms: string[];
  try {
    forms = [
      encodeURIComponent(text),
      // `new URL` re-encodes `'` in a query string; strict encoders take all of !'()*.
      encodeURIComponent(text).replace(/'/g, '%27'),
      strictUriEncode(text),
      formEncode(text),
      encodeURIComponent(encodeURIComponent(text)),
    ];
  } catch {
    // A lone surrogate cannot be percent-encoded, so it cannot have been sent that way either.
    forms = [formEncode(text)];
  }
  return [...forms, ...forms.map((form) => form.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()))];
}

/** `text`, then `escape(text)`, `escape(escape(text))`… until it stops changing or grows too long. */
function escapeChain(text: string, escape: (text: string) => string): string[] {
  const chain = [text];
  let current = text;
  for (let depth = 1; depth <= MAX_JSON_DEPTH; depth++) {
    const next = escape(current);
    if (next === current || next.length > MAX_FORM_LENGTH) break;
    chain.push(next);
    current = next;
  }
  return chain;
}

/** Standard base64 to base64url. */
function toBase64Url(base64: string): string {
  return base64.replace(/\+/g, '-').replace(/\//g, '_');
}

/** The whole-text base64 forms of `text`: standard and URL alphabets, with and without padding. */
function base64Forms(text: string): string[] {
  const padded = Buffer.from(text, 'utf8').toString('base64');
  const bare = padded.replace(/=+$/, '');
  return [padded, bare, toBase64Url(padded), toBase64Url(bare)];
}

/**
 * The base64 characters that depend only on `text`'s bytes when it sits at byte offset 0, 1 or 2
 * (mod 3) of a larger encoded text: whatever surrounds it, one of these runs appears. Characters
 * that share bits with the neighbours are left out.
 */
function base64Runs(text: string): string[] {
  const bytes = Buffer.from(text, 'utf8');
  const runs: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const first = Math.ceil((8 * offset) / 6);
    const last = Math.floor((8 * (offset + bytes.length) - 6) / 6);
    const run = encoded.slice(first, last + 1);
    if (run.length >= MIN_BASE64_RUN) runs.push(run, toBase64Url(run));
  }
  return runs;
}

/** Control characters (other than tab and line breaks) mean binary, not a credential someone types. */
function isReadable(text: string): boolean {
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if ((code < 0x20 && char !== '\t' && char !== '\n' && char !== '\r') || code === 0x7f) return false;
  }
  return true;
}

/**
 * When the value is itself base64 of readable text (a `Basic` credential stored encoded), that text
 * and its password part: a remote may echo them decoded.
 */
function decodedForms(value: string): string[] {
  const match = /^(?:[A-Za-z]+ )?([A-Za-z0-9+/_-]{8,}={0,2})$/.exec(value);
  const encoded = match?.[1];
  if (encoded === undefined) return [];
  const bytes = Buffer.from(encoded, 'base64');
  const canonical = (text: string) => toBase64Url(text).replace(/=+$/, '');
  if (canonical(bytes.toString('base64')) !== canonical(encoded)) return [];
  let decoded: string;
  try {
    decoded = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return [];
  }
  if (!isReadable(decoded)) return [];
  const colon = decoded.indexOf(':');
  const forms = [decoded, colon === -1 ? '' : decoded.slice(colon + 1)];
  return forms.filter((form) => form.length >= MIN_DERIVED_LENGTH);
}

/** Every textual form of one value: URL forms of each JSON-escaping depth (plain and ASCII-only). */
function textForms(text: string): string[] {
  const forms: string[] = [];
  const chains = [...escapeChain(text, jsonEscape), ...escapeChain(text, asciiJsonEscape).slice(1)];
  for (const form of chains) forms.push(form, ...(form.length > MAX_FORM_LENGTH ? [] : urlForms(form)));
  return forms;
}

/**
 * Every form of the secret `value` that a remote could echo. Empty strings and forms longer than
 * MAX_FORM_LENGTH are left out.
 */
export function secretEncodings(value: string): Set<string> {
  const forms = new Set<string>();
  const add = (form: string) => {
    if (form !== '' && form.length <= MAX_FORM_LENGTH) forms.add(form);
  };
  if (value === '') return forms;
  for (const base of [value, ...decodedForms(value)]) {
    for (const form of textForms(base)) add(form);
    for (const text of new Set([base, jsonEscape(base)])) {
      for (const encoded of [...base64Forms(text), ...base64Runs(text)]) {
        add(encoded);
        add(encodeURIComponent(encoded));
      }
    }
    for (const scheme of AUTH_SCHEMES) for (const encoded of base64Forms(scheme + base)) add(encoded);
  }
  return forms;
}

/**
 * The base64 forms (also URL-encoded) of a whole text a secret was sent inside, such as the
 * `Authorization` header value: a remote may echo the header encoded as one piece.
 */
export function wrapperEncodings(wrapper: string): string[] {
  return base64Forms(wrapper).flatMap((encoded) => [encoded, encodeURIComponent(encoded)]);
}
