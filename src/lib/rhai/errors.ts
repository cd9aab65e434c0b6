/**
 * Error raised by the Rhai interpreter: parse errors and runtime errors alike.
 * `kind` follows Rhai's `EvalAltResult` variant names (`ErrorParsing`, `ErrorArithmetic`, ...);
 * `parseError` is the `ParseErrorType` variant for parse errors; `inner` is the wrapped error of
 * an `ErrorInFunctionCall`. `line` and `column` are 1-based (0 when unknown).
 */
export class RhaiError extends Error {
  readonly kind: string;
  line: number;
  column: number;
  readonly parseError: string | undefined;
  readonly inner: RhaiError | undefined;
  /** For `ErrorRuntime` raised by `throw`: the thrown script value (opaque to callers). */
  readonly thrown: unknown;

  constructor(
    kind: string,
    message: string,
    line = 0,
    column = 0,
    extra: { parseError?: string; inner?: RhaiError; thrown?: unknown } = {},
  ) {
    super(message);
    this.name = 'RhaiError';
    this.kind = kind;
    this.line = line;
    this.column = column;
    this.parseError = extra.parseError;
    this.inner = extra.inner;
    this.thrown = extra.thrown;
  }

  /** Message with the position appended, as Rhai prints it. */
  describe(): string {
    return this.line > 0 ? `${this.message} (line ${this.line}, position ${this.column})` : this.message;
  }
}

/** A parse error of the given `ParseErrorType` variant at a 1-based position. */
export function parseError(type: string, message: string, line: number, column: number): RhaiError {
  return new RhaiError('ErrorParsing', message, line, column, { parseError: type });
}

/** Errors that pass through function-call boundaries unwrapped, as Rhai's system exceptions do. */
export function isSystemError(e: RhaiError): boolean {
  return (
    e.kind === 'ErrorParsing' ||
    e.kind === 'ErrorTooManyOperations' ||
    e.kind === 'ErrorStackOverflow' ||
    e.kind === 'ErrorDataTooLarge' ||
    e.kind === 'ErrorTerminated'
  );
}
