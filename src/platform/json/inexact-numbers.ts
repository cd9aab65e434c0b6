import { roundTrips } from './decimal-text.js';

/** A number of a JSON text that a 64-bit float (what `JSON.parse` makes of it) cannot hold. */
export interface InexactNumber {
  /** Keys and array indexes from the root to the number. */
  path: string[];
  /** The number as written. */
  text: string;
}

/** The numbers of a JSON text that `JSON.parse` would change, with what an exact write needs. */
export interface InexactNumbers {
  numbers: InexactNumber[];
  /** The raw JSON text of each member of the root object that holds one of them, by key. */
  members: Map<string, string>;
}

// A number a double cannot hold has more than 15 significant digits (a run of 16 digits and dots
// in the text) or an exponent of three digits. Anything else round-trips, so most bodies are
// settled by this one native scan; a match (also text inside strings) gets the exact walk.
const candidate = /\d[\d.]{15}|\d[eE][-+]?\d{3}/;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

interface Frame {
  array: boolean;
  /** Object: the current member's key; array: unused. */
  key: string;
  index: number;
  expectKey: boolean;
}

/**
 * The numbers of `json` (a text `JSON.parse` accepted) that would not survive it, or null when
 * every number does (nearly always, and then after one regular-expression test).
 */
export function findInexactNumbers(json: string): InexactNumbers | null {
  if (!candidate.test(json)) return null;
  const found = walk(json, false);
  if (found.numbers.length === 0) return null;
  const members = new Map(
    [...found.members].map(([key, [start, end]]) => [key, json.slice(start, end).trim()]),
  );
  return { numbers: found.numbers, members };
}

/**
 * Replaces the values of the root object's members named in `keys` with `replacement` (JSON text),
 * leaving every other byte as it was: e.g. masking fields of a record whose numbers a parse and
 * re-serialization would round.
 */
export function replaceRootMembers(json: string, keys: ReadonlySet<string>, replacement: string): string {
  const spans = [...walk(json, true).members]
    .filter(([key]) => keys.has(key))
    .map(([, span]) => span)
    .sort((a, b) => b[0] - a[0]);
  let result = json;
  for (const [start, end] of spans) result = `${result.slice(0, start)}${replacement}${result.slice(end)}`;
  return result;
}

// Numbers that do not round-trip, and spans of the root object's member values: those holding such
// a number, or with `allMembers` every one (a repeated key: the last, as JSON.parse keeps).
function walk(
  json: string,
  allMembers: boolean,
): { numbers: InexactNumber[]; members: Map<string, [number, number]> } {
  const numbers: InexactNumber[] = [];
  const members = new Map<string, [number, number]>();
  const stack: Frame[] = [];
  // The member of the root object being read: where its value starts, and if it holds one.
  let memberStart = -1;
  let memberInexact = false;
  // At a `,` or `}` of the root object (a member of it ends there).
  const endMember = (end: number) => {
    const root = stack[0];
    if (stack.length !== 1 || root === undefined || root.array) return;
    if (memberStart >= 0 && (memberInexact || allMembers)) members.set(root.key, [memberStart, end]);
    memberStart = -1;
    memberInexact = false;
  };
  for (let at = 0; at < json.length;) {
    const code = json.charCodeAt(at);
    const top = stack[stack.length - 1];
    if (code === QUOTE) {
      const end = stringEnd(json, at);
      if (top !== undefined && !top.array && top.expectKey) {
        top.key = JSON.parse(json.slice(at, end)) as string;
        top.expectKey = false;
      }
      at = end;
    } else if (code === MINUS || (code >= ZERO && code <= NINE)) {
      let end = at + 1;
      while (end < json.length && /[\d.eE+-]/.test(json[end] ?? '')) end++;
      const text = json.slice(at, end);
      if (!roundTrips(text)) {
        numbers.push({ path: stack.map((frame) => (frame.array ? String(frame.index) : frame.key)), text });
        memberInexact = true;
      }
      at = end;
    } else {
      switch (json[at]) {
        case '{':
        case '[':
          stack.push({ array: json[at] === '[', key: '', index: 0, expectKey: json[at] === '{' });
          break;
        case '}':
        case ']':
          endMember(at);
          stack.pop();
          break;
        case ',':
          endMember(at);
          if (top?.array) top.index++;
          else if (top !== undefined) top.expectKey = true;
          break;
        case ':':
          if (stack.length === 1) {
            memberStart = at + 1;
            memberInexact = false;
          }
          break;
      }
      at++;
    }
  }
  return { numbers, members };
}

/** The index just past the string literal that opens at `start`. */
function stringEnd(json: string, start: number): number {
  for (let from = start + 1; ;) {
    const quote = json.indexOf('"', from);
    if (quote < 0) return json.length;
    let backslashes = 0;
    while (json.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}
