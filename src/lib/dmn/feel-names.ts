/**
 * The names of a scope that a FEEL text can mention. feelin's parser needs the names in scope to read
 * names with spaces or operators ("Monthly Salary", "Date-Time"), but it copies and indexes every name
 * it is given on each parse, so handing it a model's every name made deploy-time analysis quadratic.
 * A name can only occur in a text if each of its words does, so the parser gets those names alone.
 */
export function namesMentioned(text: string, scope: readonly string[]): readonly string[] {
  if (scope.length === 0) return scope;
  const index = indexOf(scope);
  const words = new Set(wordsOf(text));
  const found: string[] = [];
  for (const word of words) {
    for (const entry of index.get(word) ?? []) {
      if (entry.words.every((w) => words.has(w))) found.push(entry.name);
    }
  }
  return found;
}

interface IndexedName {
  name: string;
  words: string[];
}

// A name's words are runs of the characters lezer-feel reads in identifiers (its isStartChar and
// isPartChar: letters, digits, `_`, `?` and their Unicode ranges), so every word of a name that occurs
// in a text is a word of the text.
function wordsOf(text: string): string[] {
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const inWord = i < text.length && isWordChar(text.charCodeAt(i));
    if (inWord && start < 0) start = i;
    if (!inWord && start >= 0) {
      words.push(text.slice(start, i));
      start = -1;
    }
  }
  return words;
}

function isWordChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) || // 0-9
    (c >= 0x41 && c <= 0x5a) || // A-Z
    (c >= 0x61 && c <= 0x7a) || // a-z
    c === 0x3f || // ?
    c === 0x5f || // _
    c === 0xb7 ||
    (c >= 0xc0 && c <= 0xd6) ||
    (c >= 0xd8 && c <= 0xf6) ||
    (c >= 0xf8 && c <= 0x37d) ||
    (c >= 0x37f && c <= 0x1fff) ||
    c === 0x200c ||
    c === 0x200d ||
    c === 0x203f ||
    c === 0x2040 ||
    (c >= 0x2070 && c <= 0x218f) ||
    (c >= 0x2c00 && c <= 0x2fef) ||
    (c >= 0x3001 && c <= 0xd7ff) ||
    (c >= 0xd800 && c <= 0xdfff) ||
    (c >= 0xf900 && c <= 0xfdcf) ||
    (c >= 0xfdf0 && c <= 0xfffd)
  );
}

const indexes = new WeakMap<readonly string[], Map<string, IndexedName[]>>();

// Each name is filed under its rarest word, so that a common word ("Decision" in "Decision 12")
// does not make every text that uses it test every name.
function indexOf(scope: readonly string[]): Map<string, IndexedName[]> {
  const cached = indexes.get(scope);
  if (cached !== undefined) return cached;
  const named = scope.map((name) => ({ name, words: [...new Set(wordsOf(name))] }));
  const frequency = new Map<string, number>();
  for (const { words } of named) for (const w of words) frequency.set(w, (frequency.get(w) ?? 0) + 1);
  const index = new Map<string, IndexedName[]>();
  for (const entry of named) {
    let key: string | undefined;
    for (const w of entry.words) {
      if (key === undefined || (frequency.get(w) ?? 0) < (frequency.get(key) ?? 0)) key = w;
    }
    // A name without a word (all symbols) cannot be read as a name; it is left out.
    if (key === undefined) continue;
    const bucket = index.get(key);
    if (bucket === undefined) index.set(key, [entry]);
    else bucket.push(entry);
  }
  indexes.set(scope, index);
  return index;
}
