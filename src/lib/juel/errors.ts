/**
 * A failure while compiling or evaluating an expression. It never leaves the library: compileJuel and
 * evaluateJuel turn it into an `{ ok: false }` result. `position` is a 0-based offset into the text.
 */
export class JuelError extends Error {
  constructor(
    message: string,
    readonly position = -1,
  ) {
    super(message);
    this.name = 'JuelError';
  }
}
