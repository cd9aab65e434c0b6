import { RhaiError } from '../errors.js';
import { rangeBounds } from '../indexing.js';
import { checkString } from '../runtime.js';
import type { RValue } from '../values.js';
import { charLength, chars, hasSurrogates, RChar, RRange } from '../values.js';
import { int, pos, str } from './args.js';
import { defFor } from './registry.js';

const S = 'string';

/** Start/length arguments resolved against a length: negative start counts from the end. */
function span(len: number, start: number, count: number): [number, number] {
  let s = start < 0 ? Math.max(0, len + start) : start;
  s = Math.min(s, len);
  const e = count <= 0 ? s : Math.min(len, s + count);
  return [s, e];
}

function substring(name: string, a: RValue[]): string {
  const s = a[0] as string;
  const cs = hasSurrogates(s) ? chars(s) : undefined;
  const len = cs ? cs.length : s.length;
  let b: [number, number];
  if (a[1] instanceof RRange) b = rangeBounds(a[1], len);
  else b = span(len, pos(name, a, 1), a.length > 2 ? pos(name, a, 2) : len);
  return cs ? cs.slice(b[0], b[1]).join('') : s.slice(b[0], b[1]);
}

defFor(S, 'len', 1, 1, (_c, a) => charLength(a[0] as string));
defFor(S, 'is_empty', 1, 1, (_c, a) => a[0] === '');
defFor(S, 'bytes', 1, 1, (_c, a) => Buffer.byteLength(a[0] as string, 'utf8'));
defFor(S, 'to_upper', 1, 1, (_c, a) => (a[0] as string).toUpperCase());
defFor(S, 'to_lower', 1, 1, (_c, a) => (a[0] as string).toLowerCase());
defFor('char', 'to_upper', 1, 1, (_c, a) => new RChar((a[0] as RChar).c.toUpperCase()));
defFor('char', 'to_lower', 1, 1, (_c, a) => new RChar((a[0] as RChar).c.toLowerCase()));
defFor(S, 'make_upper', 1, 1, (_c, a) => {
  a[0] = (a[0] as string).toUpperCase();
  return undefined;
});
defFor(S, 'make_lower', 1, 1, (_c, a) => {
  a[0] = (a[0] as string).toLowerCase();
  return undefined;
});
defFor(S, 'trim', 1, 1, (_c, a) => {
  a[0] = (a[0] as string).trim();
  return undefined;
});
defFor(S, 'contains', 2, 2, (_c, a) => (a[0] as string).includes(str('contains', a, 1)));
defFor(S, 'starts_with', 2, 2, (_c, a) => (a[0] as string).startsWith(str('starts_with', a, 1)));
defFor(S, 'ends_with', 2, 2, (_c, a) => (a[0] as string).endsWith(str('ends_with', a, 1)));
defFor(S, 'index_of', 2, 3, (_c, a) => {
  const cs = chars(a[0] as string);
  const find = chars(str('index_of', a, 1));
  let start = a.length > 2 ? pos('index_of', a, 2) : 0;
  if (start < 0) start = Math.max(0, cs.length + start);
  outer: for (let i = start; i + find.length <= cs.length; i++) {
    for (let j = 0; j < find.length; j++) if (cs[i + j] !== find[j]) continue outer;
    return i;
  }
  return -1;
});
defFor(S, 'sub_string', 2, 3, (_c, a) => substring('sub_string', a));
defFor(S, 'crop', 2, 3, (_c, a) => {
  a[0] = substring('crop', a);
  return undefined;
});
defFor(S, 'truncate', 2, 2, (_c, a) => {
  const n = Math.max(0, pos('truncate', a, 1));
  a[0] = chars(a[0] as string)
    .slice(0, n)
    .join('');
  return undefined;
});
defFor(S, 'pad', 3, 3, (c, a) => {
  const target = pos('pad', a, 1);
  const fill = str('pad', a, 2);
  let s = a[0] as string;
  let len = charLength(s);
  if (target > c.limits.maxStringSize)
    throw new RhaiError('ErrorDataTooLarge', 'Length of string exceeds the maximum limit');
  if (fill === '') return undefined;
  while (len < target) {
    s += fill;
    len += charLength(fill);
  }
  a[0] = checkString(
    c,
    chars(s)
      .slice(0, Math.max(target, charLength(a[0] as string)))
      .join(''),
  );
  return undefined;
});
defFor(S, 'replace', 3, 3, (c, a) => {
  const find = str('replace', a, 1);
  if (find !== '') a[0] = checkString(c, (a[0] as string).split(find).join(str('replace', a, 2)));
  return undefined;
});
defFor(S, 'remove', 2, 2, (_c, a) => {
  const find = str('remove', a, 1);
  if (find !== '') a[0] = (a[0] as string).split(find).join('');
  return undefined;
});
defFor(S, 'clear', 1, 1, (_c, a) => {
  a[0] = '';
  return undefined;
});
defFor(S, 'chars', 1, 1, (_c, a) => chars(a[0] as string).map((ch) => new RChar(ch)));
defFor(S, 'to_chars', 1, 1, (_c, a) => chars(a[0] as string).map((ch) => new RChar(ch)));
defFor(S, 'reverse', 1, 1, (_c, a) => {
  a[0] = chars(a[0] as string)
    .reverse()
    .join('');
  return undefined;
});
defFor(S, 'get', 2, 2, (_c, a) => {
  const cs = chars(a[0] as string);
  const i = pos('get', a, 1);
  const ch = cs[i < 0 ? cs.length + i : i];
  return ch === undefined ? undefined : new RChar(ch);
});
defFor(S, 'set', 3, 3, (_c, a) => {
  const cs = chars(a[0] as string);
  const i0 = pos('set', a, 1);
  const i = i0 < 0 ? cs.length + i0 : i0;
  if (i >= 0 && i < cs.length) {
    cs[i] = str('set', a, 2);
    a[0] = cs.join('');
  }
  return undefined;
});
defFor(S, 'split', 1, 3, (_c, a) => {
  const s = a[0] as string;
  if (a.length === 1) return s.split(/\s+/).filter((x) => x !== '');
  const sep = a[1];
  if (typeof sep === 'number' || typeof sep === 'bigint') {
    const cs = chars(s);
    const [i] = span(cs.length, Number(sep), 0);
    return [cs.slice(0, i).join(''), cs.slice(i).join('')];
  }
  const find = str('split', a, 1);
  const parts = s.split(find);
  if (a.length > 2) {
    const n = Math.max(1, pos('split', a, 2));
    if (parts.length > n) return [...parts.slice(0, n - 1), parts.slice(n - 1).join(find)];
  }
  return parts;
});
defFor(S, 'split_rev', 2, 3, (_c, a) => {
  const find = str('split_rev', a, 1);
  const parts = (a[0] as string).split(find).reverse();
  if (a.length > 2) {
    const n = Math.max(1, pos('split_rev', a, 2));
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
defFor(S, 'repeat', 2, 2, (c, a) => {
  const n = Math.max(0, Number(int('repeat', a, 1)));
  const s = a[0] as string;
  if (s.length * n > c.limits.maxStringSize)
    throw new RhaiError('ErrorDataTooLarge', 'Length of string exceeds the maximum limit');
  return s.repeat(n);
});
defFor('char', 'is_whitespace', 1, 1, (_c, a) => /^\s$/u.test((a[0] as RChar).c));
defFor('char', 'is_digit', 1, 1, (_c, a) => /^\d$/u.test((a[0] as RChar).c));
defFor('char', 'is_alphabetic', 1, 1, (_c, a) => /^\p{L}$/u.test((a[0] as RChar).c));
