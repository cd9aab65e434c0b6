/** One case of a jq test file: a program run over an input, or a program that must not compile. */
export type JqTestCase =
  | { kind: 'run'; line: number; program: string; input: string; expected: string[] }
  | { kind: 'fail'; line: number; program: string; message: string | null };

const isSkipLine = (line: string): boolean => /^[ \t]*(#.*)?$/.test(line);

/**
 * Parses jq's test-file format (tests/jq.test and friends): a program line, an input line and the
 * expected output lines, ended by a blank or comment line; `%%FAIL` before a program that must fail
 * to compile with the message on the following lines, `%%FAIL IGNORE MSG` when the message is not checked.
 */
export function parseJqTestFile(text: string): JqTestCase[] {
  const lines = text.split('\n');
  const cases: JqTestCase[] = [];
  let i = 0;
  let fail: 'check' | 'ignore' | null = null;
  const next = (): string | undefined => lines[i++];
  while (i < lines.length) {
    const line = next() as string;
    if (isSkipLine(line)) continue;
    if (line === '%%FAIL' || line === '%%FAIL IGNORE MSG') {
      fail = line === '%%FAIL' ? 'check' : 'ignore';
      continue;
    }
    const lineNumber = i;
    if (fail !== null) {
      const message: string[] = [];
      while (i < lines.length && (lines[i] as string) !== '') message.push(next() as string);
      cases.push({
        kind: 'fail',
        line: lineNumber,
        program: line,
        message: fail === 'check' ? message.join('\n') : null,
      });
      fail = null;
      continue;
    }
    const input = next() ?? '';
    const expected: string[] = [];
    while (i < lines.length && !isSkipLine(lines[i] as string)) expected.push(next() as string);
    cases.push({ kind: 'run', line: lineNumber, program: line, input, expected });
  }
  return cases;
}
