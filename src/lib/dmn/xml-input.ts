const DMN13_MODEL = 'https://www.omg.org/spec/DMN/20191111/MODEL/';
const DMN13_DMNDI = 'https://www.omg.org/spec/DMN/20191111/DMNDI/';

// dmn-moddle reads only DMN 1.3; the element vocabulary of 1.1–1.5 is close enough for what we evaluate.
const NAMESPACE_MAP: Record<string, string> = {
  'http://www.omg.org/spec/DMN/20151101/dmn.xsd': DMN13_MODEL,
  'http://www.omg.org/spec/DMN/20180521/MODEL/': DMN13_MODEL,
  'https://www.omg.org/spec/DMN/20211108/MODEL/': DMN13_MODEL,
  'https://www.omg.org/spec/DMN/20230324/MODEL/': DMN13_MODEL,
  'http://www.omg.org/spec/DMN/20180521/DMNDI/': DMN13_DMNDI,
  'https://www.omg.org/spec/DMN/20211108/DMNDI/': DMN13_DMNDI,
  'https://www.omg.org/spec/DMN/20230324/DMNDI/': DMN13_DMNDI,
};

const XMLNS_ATTRIBUTE = /(\sxmlns(?::[\w.-]+)?\s*=\s*)(["'])([^"']*)\2/g;

/**
 * Rewrites the DMN 1.1/1.2/1.4/1.5 model and DMNDI namespaces of a document to DMN 1.3, the one
 * dmn-moddle reads. Only `xmlns` declarations change.
 */
export function normalizeDmnNamespaces(xml: string): string {
  return xml.replace(XMLNS_ATTRIBUTE, (whole, prefix: string, quote: string, uri: string) => {
    const mapped = NAMESPACE_MAP[uri];
    return mapped === undefined ? whole : `${prefix}${quote}${mapped}${quote}`;
  });
}

/**
 * Why an XML document must not be parsed, or null. A DOCTYPE can declare entities (the "billion laughs"
 * expansion attack, external entities); DMN needs none, so any DOCTYPE or ENTITY declaration is refused.
 * Characters a store cannot keep (NUL, surrogates) are the caller's to refuse before it calls.
 */
export function unsafeXmlReason(xml: string): string | null {
  if (/<!DOCTYPE/i.test(xml)) return 'a DOCTYPE declaration is not allowed in a DMN document';
  if (/<!ENTITY/i.test(xml)) return 'an ENTITY declaration is not allowed in a DMN document';
  return null;
}
