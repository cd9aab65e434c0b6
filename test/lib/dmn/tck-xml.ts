/** An element of a small XML document: local name, attributes (as written), children and text. */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, ref: string) => {
    if (ref.startsWith('#x') || ref.startsWith('#X')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    return ENTITIES[ref] ?? whole;
  });
}

/**
 * Parses the TCK's test case files: elements, attributes, text, CDATA and comments; no DOCTYPE
 * (refused), no entities beyond the five predefined ones and character references.
 */
export function parseXml(xml: string): XmlElement {
  if (/<!DOCTYPE/i.test(xml)) throw new Error('DOCTYPE is not allowed');
  const root: XmlElement = { name: '#document', attrs: {}, children: [], text: '' };
  const stack: XmlElement[] = [root];
  const token =
    /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!\[CDATA\[([\s\S]*?)\]\]>|<\/([^\s>]+)\s*>|<([^\s/>]+)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|([^<]+)/g;
  for (const m of xml.matchAll(token)) {
    const top = stack[stack.length - 1] as XmlElement;
    if (m[1] !== undefined) top.text += m[1];
    else if (m[2] !== undefined) {
      if (stack.length <= 1) throw new Error(`unexpected closing tag ${m[2]}`);
      stack.pop();
    } else if (m[3] !== undefined) {
      const attrs: Record<string, string> = {};
      for (const a of (m[4] ?? '').matchAll(/([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
        attrs[a[1] as string] = decode(a[2] ?? a[3] ?? '');
      }
      const element: XmlElement = { name: localName(m[3]), attrs, children: [], text: '' };
      top.children.push(element);
      if (m[5] !== '/') stack.push(element);
    } else if (m[6] !== undefined) top.text += decode(m[6]);
  }
  const first = root.children[0];
  if (first === undefined || stack.length !== 1) throw new Error('malformed XML');
  return first;
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/** The child elements with this local name. */
export function childrenNamed(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((c) => c.name === name);
}

/** The attribute with this local name, whatever its prefix. */
export function attr(element: XmlElement, name: string): string | undefined {
  for (const [key, value] of Object.entries(element.attrs)) {
    if (key === name || key.endsWith(`:${name}`)) return value;
  }
  return undefined;
}
