/**
 * Text PostgreSQL cannot store faithfully: `text` and `jsonb` refuse U+0000, `jsonb` refuses an
 * unpaired UTF-16 surrogate escape, and a lone surrogate in a `text` parameter is silently replaced
 * by U+FFFD on the way out of Node. Requests carrying either are refused at the HTTP edge.
 */

/** Why a string cannot be stored (NUL or an unpaired surrogate), or null when it can. */
export function unstorableCharacter(text: string): string | null {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0) return 'contains a NUL character (U+0000)';
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return 'contains an unpaired UTF-16 surrogate';
    }
    if (code >= 0xdc00 && code <= 0xdfff) return 'contains an unpaired UTF-16 surrogate';
  }
  return null;
}

const CHARACTER_REFERENCE = /&#(x[0-9a-f]+|[0-9]+);/gi;

/**
 * Why an XML document's character references cannot be stored (`&#0;`, a surrogate such as
 * `&#xD800;`, or a code point past U+10FFFF), or null. XML 1.0 forbids these characters anyway;
 * the parser would hand them on to names and expressions that end up in PostgreSQL.
 */
export function forbiddenCharacterReference(xml: string): string | null {
  for (const match of xml.matchAll(CHARACTER_REFERENCE)) {
    const digits = match[1] ?? '';
    const codePoint =
      digits[0] === 'x' || digits[0] === 'X' ? parseInt(digits.slice(1), 16) : parseInt(digits, 10);
    if (codePoint === 0 || (codePoint >= 0xd800 && codePoint <= 0xdfff) || codePoint > 0x10ffff) {
      return `the document has the character reference ${match[0]}, which XML does not allow`;
    }
  }
  return null;
}
