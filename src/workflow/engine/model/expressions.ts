import { parseExpression } from 'feelin';
import { compileJuel, isJuelText } from '../../../lib/juel/index.js';
import { markJuel } from './juel-text.js';
import type { Problems } from './problems.js';

/** Where an expression sits, for problem messages: "condition of flow 'f1'". */
export interface ExpressionSite {
  problems: Problems;
  elementId: string;
  /** What the expression is, e.g. "condition", "input mapping 'x'". */
  what: string;
}

/** The position of the first FEEL syntax error in `text`, or null when it parses. */
export function feelSyntaxErrorAt(text: string): number | null {
  let at: number | null = null;
  parseExpression(text, {}, undefined).iterate({
    enter(node) {
      if (at !== null) return false;
      if (node.type.isError) {
        at = node.from;
        return false;
      }
      return undefined;
    },
  });
  return at;
}

function juelExpression(text: string, site: ExpressionSite): string | null {
  const compiled = compileJuel(text);
  if (compiled.ok) return markJuel(text);
  site.problems.add(site.elementId, `JUEL error in ${site.what} of '${site.elementId}': ${compiled.message}`);
  return null;
}

/** A FEEL string literal holding `value`. */
export function feelString(value: string): string {
  // JSON string escapes (\" \\ \n \uXXXX) are also FEEL string escapes.
  return JSON.stringify(value);
}

/**
 * True for Camunda 7 JUEL text: an unescaped `${…}` or `#{…}`, and no leading `=` (which marks
 * Zeebe's FEEL, whose string literals may hold a `${`).
 */
export function isJuel(text: string): boolean {
  return !text.trimStart().startsWith('=') && isJuelText(text);
}

/**
 * Reads text that is an expression and returns the model's expression text, or null after
 * recording a problem. JUEL (Camunda 7's `${…}`) is compiled, so a syntax error or a method
 * outside the allowed list is refused here, and kept marked ({@link markJuel}); anything else is
 * FEEL: a leading `=` (Zeebe) is dropped and the FEEL syntax is checked.
 */
export function feelExpression(raw: string, site: ExpressionSite): string | null {
  const trimmed = raw.trim();
  if (isJuel(trimmed)) return juelExpression(trimmed, site);
  const text = trimmed.startsWith('=') ? trimmed.slice(1).trim() : trimmed;
  if (text === '') {
    site.problems.add(site.elementId, `${site.what} of '${site.elementId}' is empty`);
    return null;
  }
  const at = feelSyntaxErrorAt(text);
  if (at !== null) {
    site.problems.add(
      site.elementId,
      `FEEL syntax error in ${site.what} of '${site.elementId}' at position ${at + 1}: ${text}`,
    );
    return null;
  }
  return text;
}

/**
 * Reads a value that is an expression when it starts with `=` and a static string otherwise (the
 * Zeebe convention, also used for Camunda parameters): always returns FEEL text, or null after a
 * problem.
 */
export function feelValue(raw: string, site: ExpressionSite): string | null {
  const trimmed = raw.trim();
  if (trimmed.startsWith('=') || isJuel(trimmed)) return feelExpression(trimmed, site);
  return feelString(raw);
}

/**
 * Reads a value that may be an expression (`=…`) but that we only accept static, such as a job
 * topic or a message name. Returns the static text, or null after recording a problem.
 */
export function staticValue(raw: string, site: ExpressionSite): string | null {
  const trimmed = raw.trim();
  if (trimmed.startsWith('=') || isJuel(trimmed)) {
    site.problems.add(
      site.elementId,
      `${site.what} of '${site.elementId}' must be a constant; expressions (${trimmed}) are not supported`,
    );
    return null;
  }
  return trimmed === '' ? null : trimmed;
}
