/** The parameter conversion of node-postgres (`pg/lib/utils.js`), which its typings do not declare. */
declare module 'pg/lib/utils.js' {
  /** A JavaScript value as node-postgres sends it: text (arrays as array literals), a Buffer or null. */
  export function prepareValue(value: unknown): string | Buffer | null;
}
