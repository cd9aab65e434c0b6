import { evaluateFeel } from '../engine/runtime/feel.js';
import type { JsonValue, Variables } from '../engine/runtime/index.js';

/**
 * Connector templates: literal text with `{{secret:<name>}}` placeholders (a stored secret, resolved
 * just before sending) and `{{= <FEEL> }}` placeholders (evaluated against the task's variables).
 * An expression ends at the first `}}`.
 */
export type TemplatePart =
  { kind: 'text'; text: string } | { kind: 'secret'; name: string } | { kind: 'feel'; expression: string };

/** How a FEEL value is written into the text: a URL, a header, a JSON body or a plain text body. */
export type TemplateTarget = 'url' | 'header' | 'json' | 'text';

const placeholder = /\{\{\s*(?:secret:([A-Za-z0-9_.-]{1,128})|=([\s\S]*?))\s*\}\}/g;

/** Splits a template into its parts. */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const match of template.matchAll(placeholder)) {
    if (match.index > last) parts.push({ kind: 'text', text: template.slice(last, match.index) });
    if (match[1] !== undefined) parts.push({ kind: 'secret', name: match[1] });
    else parts.push({ kind: 'feel', expression: (match[2] ?? '').trim() });
    last = match.index + match[0].length;
  }
  if (last < template.length) parts.push({ kind: 'text', text: template.slice(last) });
  return parts;
}

/** Problems of a template, for deploy-time checks: empty expressions and malformed secret placeholders. */
export function templateProblems(template: string): string[] {
  const problems: string[] = [];
  for (const part of parseTemplate(template)) {
    if (part.kind === 'feel' && part.expression === '') problems.push('has an empty {{= }} expression');
    if (part.kind === 'text' && /\{\{\s*secret:/.test(part.text)) {
      problems.push(
        'has a {{secret:…}} placeholder whose name is not letters, digits, _, . or - (at most 128)',
      );
    }
  }
  return problems;
}

/** The secret names a template refers to. */
export function secretNamesIn(parts: readonly TemplatePart[]): string[] {
  return parts.flatMap((part) => (part.kind === 'secret' ? [part.name] : []));
}

/** Thrown when a `{{= }}` expression cannot be evaluated. */
export class TemplateError extends Error {
  override readonly name = 'TemplateError';
}

function written(value: JsonValue, target: TemplateTarget): string {
  if (target === 'json') return JSON.stringify(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return target === 'url' ? encodeURIComponent(text) : text;
}

/**
 * Renders a template. A secret is inserted as it is (URL-encoded in a URL, JSON-escaped inside a
 * JSON body's string); a FEEL value as JSON in a JSON body, else as text.
 */
export function renderTemplate(
  parts: readonly TemplatePart[],
  target: TemplateTarget,
  variables: Variables,
  secrets: ReadonlyMap<string, string>,
): string {
  let out = '';
  for (const part of parts) {
    if (part.kind === 'text') out += part.text;
    else if (part.kind === 'secret') {
      const value = secrets.get(part.name) ?? '';
      out +=
        target === 'url'
          ? encodeURIComponent(value)
          : target === 'json'
            ? JSON.stringify(value).slice(1, -1)
            : value;
    } else {
      const result = evaluateFeel(part.expression, variables);
      if (!result.ok) throw new TemplateError(`{{= ${part.expression} }}: ${result.message}`);
      out += written(result.value, target);
    }
  }
  return out;
}
