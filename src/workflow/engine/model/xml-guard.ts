import { forbiddenCharacterReference, unstorableCharacter } from '../../../platform/text/unstorable-text.js';

/** Default upper bound on a BPMN document's length; real models are well under 1 MiB. */
export const DEFAULT_MAX_LENGTH = 8 * 1024 * 1024;

/**
 * Checks the raw text before any XML parser sees it: empty or oversized input, text that is not
 * XML, and any DOCTYPE. saxen (bpmn-moddle's parser) does not expand entities, but a DOCTYPE has no
 * place in BPMN, so rejecting it keeps entity tricks (billion laughs, external entities) out whatever
 * the parser does in a later version. NUL and surrogates, raw or as character references (`&#0;`),
 * are refused too: XML does not allow them and PostgreSQL cannot store them. Returns a problem
 * message, or null when the text may be parsed.
 */
export function checkXmlText(xml: string, maxLength: number = DEFAULT_MAX_LENGTH): string | null {
  if (xml.trim() === '') return 'the document is empty';
  if (xml.length > maxLength) {
    return `the document is ${xml.length} characters long; the limit is ${maxLength}`;
  }
  const unstorable = unstorableCharacter(xml);
  if (unstorable !== null) return `the document ${unstorable}`;
  return forbiddenCharacterReference(xml) ?? checkProlog(xml);
}

// Walks the prolog (XML declaration, processing instructions, comments) up to the root element.
function checkProlog(xml: string): string | null {
  let i = xml.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (;;) {
    while (i < xml.length && isXmlSpace(xml.charCodeAt(i))) i++;
    if (i >= xml.length) return 'the document has no root element';
    if (xml[i] !== '<') return 'the document is not XML: it must start with "<"';
    if (xml.startsWith('<?', i)) {
      const end = xml.indexOf('?>', i + 2);
      if (end < 0) return 'the document is not XML: unterminated processing instruction';
      i = end + 2;
    } else if (xml.startsWith('<!--', i)) {
      const end = xml.indexOf('-->', i + 4);
      if (end < 0) return 'the document is not XML: unterminated comment';
      i = end + 3;
    } else if (xml.startsWith('<!', i)) {
      if (xml.slice(i + 2, i + 9).toUpperCase() === 'DOCTYPE') {
        return 'the document has a DOCTYPE; DOCTYPE and entity declarations are not accepted';
      }
      return 'the document is not XML: unexpected "<!" before the root element';
    } else {
      return /^<[A-Za-z_]/.test(xml.slice(i, i + 2)) ? null : 'the document is not XML: bad root element';
    }
  }
}

function isXmlSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}
