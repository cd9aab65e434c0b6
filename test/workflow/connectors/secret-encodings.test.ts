import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { REDACTED, Redactor } from '../../../src/workflow/connectors/redactor.js';
import { MAX_JSON_DEPTH } from '../../../src/workflow/connectors/secret-encodings.js';

const jsonEscape = (text: string) => JSON.stringify(text).slice(1, -1);
const escapedTimes = (text: string, times: number) => {
  let out = text;
  for (let i = 0; i < times; i++) out = jsonEscape(out);
  return out;
};
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** Every decoding of the base64 runs of `text`, at each of the four character alignments. */
function decodedBase64Runs(text: string): string[] {
  const decoded: string[] = [];
  for (const run of text.match(/[A-Za-z0-9+/_-]{8,}/g) ?? []) {
    for (let skip = 0; skip < 4; skip++)
      decoded.push(Buffer.from(run.slice(skip), 'base64').toString('utf8'));
  }
  return decoded;
}

const secret = 'p"w\\Zq81/ é!\'(x)+*~me';

describe('the redactor finds a secret in every encoding a remote can echo', () => {
  const redactor = new Redactor([secret]);
  const forms: [string, string][] = [
    ['raw', secret],
    ['encodeURIComponent', encodeURIComponent(secret)],
    ['form encoding', new URLSearchParams({ v: secret }).toString().slice(2)],
    ['URL-encoded twice', encodeURIComponent(encodeURIComponent(secret))],
    ['lower-case percent hex', encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())],
    ['as new URL writes a query', new URL(`http://h/?q=${encodeURIComponent(secret)}`).search.slice(3)],
    ['ASCII-only JSON (Python, PHP)', jsonEscape(secret).replace('é', '\\u00e9').replace('/', '\\/')],
    ['base64', base64(secret)],
    ['base64 without padding', base64(secret).replace(/=+$/, '')],
    ['base64url', Buffer.from(secret).toString('base64url')],
    ['base64 of Bearer <value>', base64(`Bearer ${secret}`)],
    ['base64 of the JSON-escaped value', base64(jsonEscape(secret))],
    ['URL-encoded base64', encodeURIComponent(base64(secret))],
  ];
  for (let depth = 1; depth <= MAX_JSON_DEPTH; depth++) {
    forms.push([`JSON-escaped ${depth}×`, escapedTimes(secret, depth)]);
    forms.push([`JSON-escaped ${depth}×, then URL-encoded`, encodeURIComponent(escapedTimes(secret, depth))]);
  }
  for (const [name, form] of forms) {
    test(name, () => {
      const out = redactor.text(`before ${form} after`);
      assert.equal(out, `before ${REDACTED} after`);
    });
  }

  test('base64 of a larger text holding the value, at every byte offset', () => {
    for (const prefix of ['', 'u', 'us', 'user:', '{"h":"']) {
      for (const suffix of ['', '!', '"}']) {
        const out = redactor.text(base64(`${prefix}${secret}${suffix}`));
        assert.ok(out.includes(REDACTED), `${prefix}|${suffix}`);
        for (const decoded of decodedBase64Runs(out)) assert.ok(!decoded.includes(secret));
      }
    }
  });

  test('a base64 credential is also found decoded, and its password part alone', () => {
    const basic = new Redactor([Buffer.from('svc-user:hunter2-x').toString('base64')]);
    assert.equal(basic.text('got svc-user:hunter2-x'), `got ${REDACTED}`);
    assert.equal(basic.text('pw=hunter2-x;'), `pw=${REDACTED};`);
  });

  test('a whole header value that carried the secret is found base64-encoded', () => {
    const header = `Token realm="x", key=${secret}`;
    const withHeader = redactor.including([header, 'application/json']);
    assert.equal(withHeader.text(base64(header)), REDACTED);
    assert.equal(withHeader.text(base64('application/json')), base64('application/json'));
  });

  test('overlapping forms and adjacent occurrences leave no fragment behind', () => {
    const two = new Redactor(['abcdef', 'defghi']);
    assert.equal(two.text('xabcdefghiy'), `x${REDACTED}y`);
    assert.equal(two.text('abcdefabcdef'), REDACTED);
  });

  test('JSON values: strings and keys', () => {
    assert.deepEqual(redactor.json({ [secret]: [jsonEscape(jsonEscape(secret)), 1, null] }), {
      [REDACTED]: [REDACTED, 1, null],
    });
  });

  test('a lone surrogate in a value does not throw', () => {
    assert.equal(new Redactor(['ab\ud800cd']).text('x ab\ud800cd y'), `x ${REDACTED} y`);
  });

  test('property: any value, any depth of JSON escaping and URL encoding, inside any text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 6, maxLength: 40 }),
        fc.integer({ min: 0, max: 5 }),
        fc.constantFrom('none', 'uri', 'form'),
        fc.string({ maxLength: 20 }),
        fc.string({ maxLength: 20 }),
        (value, depth, encoding, before, after) => {
          const escaped = escapedTimes(value, depth);
          const sent =
            encoding === 'uri'
              ? encodeURIComponent(escaped)
              : encoding === 'form'
                ? new URLSearchParams({ v: escaped }).toString().slice(2)
                : escaped;
          const out = new Redactor([value]).text(`${before}${sent}${after}`);
          assert.ok(!out.includes(sent), out);
          assert.ok(!out.includes(value), out);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('property: base64 of any text holding the value (or its JSON-escaped form) at any offset', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 7, maxLength: 40 }),
        fc.boolean(),
        fc.boolean(),
        fc.string({ maxLength: 20 }),
        fc.string({ maxLength: 20 }),
        (value, escape, url, before, after) => {
          const escaped = escape ? jsonEscape(value) : value;
          const bytes = Buffer.from(`${before}${escaped}${after}`);
          const sent = bytes.toString(url ? 'base64url' : 'base64');
          const out = new Redactor([value]).text(`<${sent}>`);
          assert.ok(out.includes(REDACTED), out);
          for (const decoded of decodedBase64Runs(out)) assert.ok(!decoded.includes(escaped), out);
        },
      ),
      { numRuns: 300 },
    );
  });
});
