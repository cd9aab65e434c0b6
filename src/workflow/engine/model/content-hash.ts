import { createHash } from 'node:crypto';

/**
 * Hex sha256 of a BPMN document, insensitive to line endings, trailing whitespace on each line,
 * trailing blank lines and a byte order mark, so that re-deploying the same XML can be detected.
 */
export function bpmnContentHash(xml: string): string {
  const text = xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml;
  const normalised = text
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(/[ \t]+$/, ''))
    .join('\n')
    .replace(/\n+$/, '');
  return createHash('sha256').update(normalised, 'utf8').digest('hex');
}
