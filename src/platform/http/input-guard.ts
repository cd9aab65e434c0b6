import type { FrameworkFailure } from './error-mapping.js';
import { unstorableCharacter } from '../text/unstorable-text.js';

/** Default deepest nesting of arrays and objects a request body may have. */
export const DEFAULT_MAX_JSON_DEPTH = 128;

/** The parts of a request the guard looks at, by the name a validation error gives them. */
export interface RequestParts {
  params: unknown;
  querystring: unknown;
  headers: unknown;
  body: unknown;
}

// A path kept as a chain of links so one is only spelled out when it is reported.
interface PathLink {
  parent: PathLink | null;
  key: string;
}

type Problem = Extract<FrameworkFailure, { kind: 'validation' }>;

const MAYBE_UNSTORABLE = /[\0\ud800-\udfff]/;

/**
 * Finds what no route can take: a string or key with a NUL or an unpaired surrogate anywhere in the
 * path parameters, query, headers or body, or a body nested deeper than `maxDepth` levels (code
 * further in, from validation to `JSON.stringify`, recurses and would overflow the stack). Walks
 * iteratively, so input of any depth is safe here. Returns a validation failure, or null.
 */
export function findHostileInput(parts: RequestParts, maxDepth: number): Problem | null {
  for (const [part, value] of Object.entries(parts)) {
    const problem = walk(value, { parent: null, key: part }, maxDepth);
    if (problem !== null) return { kind: 'validation', message: problem.message, errors: [problem.error] };
  }
  return null;
}

function walk(
  root: unknown,
  rootPath: PathLink,
  maxDepth: number,
): { message: string; error: { path: string; message: string } } | null {
  const pending: [unknown, PathLink, number][] = [[root, rootPath, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, path, depth] = next;
    if (typeof value === 'string') {
      const reason = check(value);
      if (reason !== null) return unstorable(spell(path), reason);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= maxDepth) {
      const message = `The request nests arrays and objects deeper than ${maxDepth} levels`;
      return { message, error: { path: spell(path), message: `is nested deeper than ${maxDepth} levels` } };
    }
    if (Array.isArray(value)) {
      value.forEach((item, index) => pending.push([item, { parent: path, key: String(index) }, depth + 1]));
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      const reason = check(key);
      if (reason !== null) return unstorable(spell(path), `has a key that ${reason}`);
      pending.push([item, { parent: path, key }, depth + 1]);
    }
  }
  return null;
}

function check(text: string): string | null {
  return MAYBE_UNSTORABLE.test(text) ? unstorableCharacter(text) : null;
}

function unstorable(path: string, reason: string) {
  return {
    message: 'The request has text that cannot be stored: NUL characters and unpaired surrogates are refused',
    error: { path, message: reason },
  };
}

function spell(path: PathLink): string {
  const keys: string[] = [];
  for (let link: PathLink | null = path; link !== null; link = link.parent) keys.push(link.key);
  const spelled = keys.reverse().join('.');
  // Keys are caller-chosen; keep a hostile one from making the error body huge.
  return spelled.length > 200 ? `${spelled.slice(0, 200)}…` : spelled;
}
