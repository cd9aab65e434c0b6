import { RhaiError } from '../errors.js';
import { rangeBounds } from '../indexing.js';
import { checkString } from '../runtime.js';
import type { RhaiValue } from '../values.js';
import { charLength, chars, hasSurrogates, RhaiBlob, RhaiChar, RhaiRange } from '../values.js';
import { intArgument, clampedIntArgument, stringArgument } from './args.js';
import { defineFunctionFor } from './registry.js';

const S = 'string';

/** Start/length arguments resolved against a length: negative start counts from the end. */
function span(len: number, start: number, count: number): [number, number] {
  let s = start < 0 ? Math.max(0, len + start) : start;
  s = Math.min(s, len);
  const e = count <= 0 ? s : Math.min(len, s + count);
  return [s, e];
}

function substring(name: string, a: RhaiValue[]): string {
  const s = a[0] as string;
  const cs = hasSurrogates(s) ? chars(s) : undefined;
  const len = cs ? cs.length : s.length;
  let b: [number, number];
  if (a[1] instanceof RhaiRange) b = rangeBounds(a[1], len);
  else b = span(len, clampedIntArgument(name, a, 1), a.length > 2 ? clampedIntArgument(name, a, 2) : len);
  return cs ? cs.slice(b[0], b[1]).join('') : s.slice(b[0], b[1]);
}

defineFunctionFor(S, 'to_blob', 1, 1, (_c, a) => new RhaiBlob(new TextEncoder().encode(a[0] as string)));
defineFunctionFor(S, 'len', 1, 1, (_c, a) => charLength(a[0] as string));
defineFunctionFor(S, 'is_empty', 1, 1, (_c, a) => a[0] === '');
defineFunctionFor(S, 'bytes', 1, 1, (_c, a) => Buffer.byteLength(a[0] as string, 'utf8'));
defineFunctionFor(S, 'to_upper', 1, 1, (_c, a) => (a[0] as string).toUpperCase());
defineFunctionFor(S, 'to_lower', 1, 1, (_c, a) => (a[0] as string).toLowerCase());
defineFunctionFor('char', 'to_upper', 1, 1, (_c, a) => new RhaiChar((a[0] as RhaiChar).value.toUpperCase()));
defineFunctionFor('char', 'to_lower', 1, 1, (_c, a) => new RhaiChar((a[0] as RhaiChar).value.toLowerCase()));
defineFunctionFor(S, 'make_upper', 1, 1, (_c, a) => {
  a[0] = (a[0] as string).toUpperCase();
  return undefined;
});
defineFunctionFor(S, 'make_lower', 1, 1, (_c, a) => {
  a[0] = (a[0] as string).toLowerCase();
  return undefined;
});
defineFunctionFor(S, 'trim', 1, 1, (_c, a) => {
  a[0] = (a[0] as string).trim();
  return undefined;
});
defineFunctionFor(S, 'contains', 2, 2, (_c, a) =>
  (a[0] as string).includes(stringArgument('contains', a, 1)),
);
defineFunctionFor(S, 'starts_with', 2, 2, (_c, a) =>
  (a[0] as string).startsWith(stringArgument('starts_with', a, 1)),
);
defineFunctionFor(S, 'ends_with', 2, 2, (_c, a) =>
  (a[0] as string).endsWith(stringArgument('ends_with', a, 1)),
);
defineFunctionFor(S, 'index_of', 2, 3, (_c, a) => {
  const cs = chars(a[0] as string);
  const find = chars(stringArgument('index_of', a, 1));
  let start = a.length > 2 ? clampedIntArgument('index_of', a, 2) : 0;
  if (start < 0) start = Math.max(0, cs.length + start);
  outer: for (let i = start; i + find.length <= cs.length; i++) {
    for (let j = 0; j < find.length; j++) if (cs[i + j] !== find[j]) continue outer;
    return i;
  }
  return -1;
});
defineFunctionFor(S, 'sub_string', 2, 3, (_c, a) => substring('sub_string', a));
defineFunctionFor(S, 'crop', 2, 3, (_c, a) => {
  a[0] = substring('crop', a);
  return undefined;
});
defineFunctionFor(S, 'truncate', 2, 2, (_c, a) => {
  const n = Math.max(0, clampedIntArgument('truncate', a, 1));
  a[0] = chars(a[0] as string)
    .slice(0, n)
    .join('');
  return undefined;
});
defineFunctionFor(S, 'pad', 3, 3, (context, a) => {
  const target = clampedIntArgument('pad', a, 1);
  const fill = stringArgument('pad', a, 2);
  let s = a[0] as string;
  let len = charLength(s);
  if (target > context.limits.maxStringSize)
    throw new RhaiError('ErrorDataTooLarge', 'Length of string exceeds the maximum limit');
  if (fill === '') return undefined;
  while (len < target) {
    s += fill;
    len += charLength(fill);
  }
  a[0] = checkString(
    context,
    chars(s)
      .slice(0, Math.max(target, charLength(a[0] as string)))
      .join(''),
  );
  return undefined;
});
defineFunctionFor(S, 'replace', 3, 3, (context, a) => {
  const find = stringArgument('replace', a, 1);
  if (find !== '')
    a[0] = checkString(context, (a[0] as string).split(find).join(stringArgument('replace', a, 2)));
  return undefined;
});
defineFunctionFor(S, 'remove', 2, 2, (_c, a) => {
  const find = stringArgument('remove', a, 1);
  if (find !== '') a[0] = (a[0] as string).split(find).join('');
  return undefined;
});
defineFunctionFor(S, 'clear', 1, 1, (_c, a) => {
  a[0] = '';
  return undefined;
});
/**
 * `chars(s)`, `chars(s, start)`, `chars(s, start, len)`, `chars(s, range)`: the characters of a
 * part of the string. A negative start counts from the end; a range's negative start is 0.
 */
defineFunctionFor(S, 'chars', 1, 3, (_c, a) => {
  const cs = chars(a[0] as string);
  let from = 0;
  let to = cs.length;
  if (a[1] instanceof RhaiRange) {
    const r = a[1];
    from = Math.max(0, Number(r.from));
    to = Math.max(from, Number(r.to) + (r.inclusive ? 1 : 0));
  } else if (a.length > 1) {
    const start = clampedIntArgument('chars', a, 1);
    const len = a.length > 2 ? clampedIntArgument('chars', a, 2) : cs.length;
    from = start < 0 ? Math.max(0, cs.length + start) : start;
    to = len <= 0 ? from : from + len;
  }
  return cs.slice(from, to).map((ch) => new RhaiChar(ch));
});
defineFunctionFor(S, 'to_chars', 1, 1, (_c, a) => chars(a[0] as string).map((ch) => new RhaiChar(ch)));
defineFunctionFor(S, 'reverse', 1, 1, (_c, a) => {
  a[0] = chars(a[0] as string)
    .reverse()
    .join('');
  return undefined;
});
defineFunctionFor(S, 'get', 2, 2, (_c, a) => {
  const cs = chars(a[0] as string);
  const i = clampedIntArgument('get', a, 1);
  const ch = cs[i < 0 ? cs.length + i : i];
  return ch === undefined ? undefined : new RhaiChar(ch);
});
defineFunctionFor(S, 'set', 3, 3, (_c, a) => {
  const cs = chars(a[0] as string);
  const i0 = clampedIntArgument('set', a, 1);
  const i = i0 < 0 ? cs.length + i0 : i0;
  if (i >= 0 && i < cs.length) {
    cs[i] = stringArgument('set', a, 2);
    a[0] = cs.join('');
  }
  return undefined;
});
defineFunctionFor(S, 'split', 1, 3, (_c, a) => {
  const s = a[0] as string;
  // Split at whitespace; as Rhai, an empty string gives one empty part.
  if (a.length === 1) return s === '' ? [''] : s.split(/\s+/).filter((x) => x !== '');
  const sep = a[1];
  if (typeof sep === 'number' || typeof sep === 'bigint') {
    const cs = chars(s);
    const [i] = span(cs.length, Number(sep), 0);
    return [cs.slice(0, i).join(''), cs.slice(i).join('')];
  }
  const find = stringArgument('split', a, 1);
  const parts = s.split(find);
  if (a.length > 2) {
    const n = Math.max(1, clampedIntArgument('split', a, 2));
    if (parts.length > n) return [...parts.slice(0, n - 1), parts.slice(n - 1).join(find)];
  }
  return parts;
});
defineFunctionFor(S, 'split_rev', 2, 3, (_c, a) => {
  const find = stringArgument('split_rev', a, 1);
  const parts = (a[0] as string).split(find).reverse();
  if (a.length > 2) {
    const n = Math.max(1, clampedIntArgument('split_rev', a, 2));
    if (parts.length > n)
      return [
        ...parts.slice(0, n - 1),
        parts
          .slice(n - 1)
          .reverse()
          .join(find),
      ];
  }
  return parts;
});
defineFunctionFor(S, 'repeat', 2, 2, (context, a) => {
  const n = Math.max(0, Number(intArgument('repeat', a, 1)));
  const s = a[0] as string;
  if (s.length * n > context.limits.maxStringSize)
    throw new RhaiError('ErrorDataTooLarge', 'Length of string exceeds the maximum limit');
  return s.repeat(n);
});
defineFunctionFor('char', 'is_whitespace', 1, 1, (_c, a) => /^\s$/u.test((a[0] as RhaiChar).value));
defineFunctionFor('char', 'is_digit', 1, 1, (_c, a) => /^\d$/u.test((a[0] as RhaiChar).value));
defineFunctionFor('char', 'is_alphabetic', 1, 1, (_c, a) => /^\p{L}$/u.test((a[0] as RhaiChar).value));
