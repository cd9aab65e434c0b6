import * as celRuntime from '../cel-engine/index.js';

/** cel-js's duration value (the package does not declare its class). */
export interface Duration {
  readonly seconds: bigint;
  readonly nanos: number;
}

function classOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? value.constructor?.name : undefined;
}

/** True for a cel-js duration. */
export function isDuration(value: unknown): value is Duration {
  return classOf(value) === 'Duration';
}

/** True for a cel-js unsigned integer (its number is `.value`). */
export function isUint(value: unknown): value is { value: bigint } {
  return classOf(value) === 'UnsignedInt';
}

/** A runtime value of cel-js: int is bigint, double is number, uint is UnsignedInt, timestamp is Date. */
export type CelValue = unknown;

/** The CEL type name of a runtime value, as error messages of cel-spec name it. */
export function celTypeName(value: CelValue): string {
  if (value === null) return 'null_type';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'double';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (isUint(value)) return 'uint';
  if (value instanceof Uint8Array) return 'bytes';
  if (value instanceof Date) return 'google.protobuf.Timestamp';
  if (isDuration(value)) return 'google.protobuf.Duration';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Map) return 'map';
  if (isType(value)) return 'type';
  if (typeof value === 'object') return 'map';
  return typeof value;
}

/** True for a cel-js type value (the result of `type(x)`, or a type name such as `int`). */
export function isType(value: CelValue): value is { name: string } {
  return classOf(value) === 'Type' && typeof (value as { name?: unknown }).name === 'string';
}

/** The entries of a CEL map (a JS Map or a plain object). */
export function mapEntries(value: object): [CelValue, CelValue][] {
  return value instanceof Map ? [...(value as Map<unknown, unknown>).entries()] : Object.entries(value);
}

/** A double as CEL's `string(double)` writes it (Go's shortest `g` form, `Infinity`, `NaN`). */
export function doubleText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  return String(value);
}

/** A timestamp in RFC 3339 with as many fraction digits as it needs (`2009-02-13T23:31:30Z`). */
export function timestampText(value: Date): string {
  const nanos = celRuntime.subMillisecondNanos(value);
  return value
    .toISOString()
    .replace(/Z$/, `${String(nanos).padStart(6, '0')}Z`)
    .replace(/\.0+Z$/, 'Z')
    .replace(/(\.\d*?)0+Z$/, '$1Z');
}

/** A duration as seconds with a fraction when it has one (`1.5s`, `-3s`). */
export function durationText(value: Duration): string {
  const negative = value.seconds < 0n || value.nanos < 0;
  const seconds = value.seconds < 0n ? -value.seconds : value.seconds;
  const nanos = Math.abs(value.nanos);
  const fraction = nanos ? `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}` : '';
  return `${negative ? '-' : ''}${seconds}${fraction}s`;
}

const runtime = celRuntime as unknown as { UnsignedInt: new (value: bigint) => unknown };

/** A cel-js unsigned integer of `value` (the package exports its class without declaring it). */
export function makeUint(value: bigint): unknown {
  return new runtime.UnsignedInt(value);
}

/** The 64-bit bounds of CEL's int. */
export const MIN_INT = -(2n ** 63n);
export const MAX_INT = 2n ** 63n - 1n;

/** The error of a call whose arguments no overload takes, as cel-spec words it. */
export function noSuchOverload(name: string, ...args: unknown[]): Error {
  return new Error(`no such overload: ${name}(${args.map(celTypeName).join(', ')})`);
}

function numberOf(value: CelValue): number | bigint | undefined {
  if (typeof value === 'number' || typeof value === 'bigint') return value;
  return isUint(value) ? value.value : undefined;
}

/** CEL's `==` on runtime values: numbers compare across int, uint and double; lists and maps deeply. */
export function celEquals(a: CelValue, b: CelValue): boolean {
  const [x, y] = [numberOf(a), numberOf(b)];
  if (x !== undefined || y !== undefined) return x !== undefined && y !== undefined && x == y;
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof celRuntime.Optional || b instanceof celRuntime.Optional) {
    if (!(a instanceof celRuntime.Optional && b instanceof celRuntime.Optional)) return false;
    return a.hasValue() === b.hasValue() && (!a.hasValue() || celEquals(a.value(), b.value()));
  }
  if (a instanceof Date || b instanceof Date)
    return (
      a instanceof Date &&
      b instanceof Date &&
      a.getTime() === b.getTime() &&
      celRuntime.subMillisecondNanos(a) === celRuntime.subMillisecondNanos(b)
    );
  if (isDuration(a) || isDuration(b))
    return isDuration(a) && isDuration(b) && a.seconds === b.seconds && a.nanos === b.nanos;
  if (a instanceof Uint8Array || b instanceof Uint8Array)
    return (
      a instanceof Uint8Array &&
      b instanceof Uint8Array &&
      a.length === b.length &&
      a.every((v, i) => v === b[i])
    );
  if (Array.isArray(a) || Array.isArray(b))
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => celEquals(v, b[i]))
    );
  if (isType(a) || isType(b)) return isType(a) && isType(b) && a.name === b.name;
  const [left, right] = [mapEntries(a), mapEntries(b)];
  return (
    left.length === right.length &&
    left.every(([key, value]) => {
      const match = right.find(([other]) => celEquals(key, other));
      return match !== undefined && celEquals(value, match[1]);
    })
  );
}
