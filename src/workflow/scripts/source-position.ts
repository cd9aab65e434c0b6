/** A 1-based line and column in a step's expression. */
export interface SourcePosition {
  line: number;
  column: number;
}

/** Turns a 0-based character offset into a 1-based line and column. */
export function positionAt(source: string, offset: number): SourcePosition {
  const clamped = Math.max(0, Math.min(offset, source.length));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < clamped; i++) {
    if (source.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: clamped - lineStart + 1 };
}

const jqPosition = /, line (\d+), column (\d+):/;

/** The position jq names in a compile error ("… at <top-level>, line 1, column 4:"), if any. */
export function jqErrorPosition(message: string): SourcePosition | null {
  const match = jqPosition.exec(message);
  if (!match) return null;
  return { line: Number(match[1]), column: Number(match[2]) };
}
