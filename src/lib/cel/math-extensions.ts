import type { Environment } from '../cel-engine/index.js';
import { isUint, makeUint, MAX_INT, MIN_INT, noSuchOverload, type CelValue } from './cel-values.js';

/** The `math` namespace of CEL's math extension (a constant the functions hang on). */
class MathNamespace {}

/** The most arguments a call may have; cel-js limits calls to this many (`maxCallArguments`). */
export const maxVariadicArguments = 32;

function numeric(value: CelValue): number | bigint | undefined {
  if (typeof value === 'bigint' || typeof value === 'number') return value;
  if (isUint(value)) return value.value;
  return undefined;
}

/** `math.greatest`/`math.least`: the argument (or list item) that compares highest/lowest. */
function extreme(name: string, pick: (a: number | bigint, b: number | bigint) => boolean) {
  return (_: unknown, ...args: CelValue[]): CelValue => {
    const values = args.length === 1 && Array.isArray(args[0]) ? (args[0] as CelValue[]) : args;
    if (values.length === 0) throw new Error(`math.${name}(list) argument must not be empty`);
    let best: CelValue;
    let bestNumber: number | bigint | undefined;
    for (const value of values) {
      const number = numeric(value);
      if (number === undefined) throw noSuchOverload(`math.${name}`, value);
      if (bestNumber === undefined || pick(number, bestNumber)) [best, bestNumber] = [value, number];
    }
    return best;
  };
}

function checkedInt(value: bigint): bigint {
  if (value < MIN_INT || value > MAX_INT) throw new Error('integer overflow');
  return value;
}

function shiftOffset(offset: bigint): bigint {
  if (offset < 0n) throw new Error(`math.bitShift() negative offset: ${offset}`);
  return offset;
}

function bitwise(name: string, op: (a: bigint, b: bigint) => bigint) {
  return (env: Environment) =>
    env
      .registerFunction(`MathNamespace.${name}(int, int): int`, (_: unknown, a: bigint, b: bigint) =>
        op(a, b),
      )
      .registerFunction(`MathNamespace.${name}(uint, uint): uint`, (_: unknown, a: CelValue, b: CelValue) =>
        makeUint(op((a as { value: bigint }).value, (b as { value: bigint }).value)),
      );
}

/**
 * Registers CEL's math extension (cel-go `ext.Math`): `math.greatest`/`math.least` (numbers of any
 * kind, or one list), `ceil`, `floor`, `round` (half away from zero), `trunc`, `abs`, `sign`,
 * `isInf`, `isNaN`, `isFinite`, `sqrt` and the bit functions on int and uint.
 */
export function registerMathExtensions(env: Environment): Environment {
  env
    .registerType('MathNamespace', MathNamespace)
    .registerConstant('math', 'MathNamespace', new MathNamespace());
  for (let arity = 1; arity <= maxVariadicArguments; arity++) {
    const params = Array.from({ length: arity }, () => 'dyn').join(', ');
    env.registerFunction(
      `MathNamespace.greatest(${params}): dyn`,
      extreme('greatest', (a, b) => a > b),
    );
    env.registerFunction(
      `MathNamespace.least(${params}): dyn`,
      extreme('least', (a, b) => a < b),
    );
  }
  const double = (name: string, op: (value: number) => number) =>
    env.registerFunction(`MathNamespace.${name}(double): double`, (_: unknown, value: number) => op(value));
  double('ceil', Math.ceil);
  double('floor', Math.floor);
  double('trunc', Math.trunc);
  double('round', (value) => Math.sign(value) * Math.round(Math.abs(value)));
  env
    .registerFunction(
      'MathNamespace.isInf(double): bool',
      (_: unknown, v: number) => Math.abs(v) === Infinity,
    )
    .registerFunction('MathNamespace.isNaN(double): bool', (_: unknown, v: number) => Number.isNaN(v))
    .registerFunction('MathNamespace.isFinite(double): bool', (_: unknown, v: number) => Number.isFinite(v))
    .registerFunction('MathNamespace.abs(int): int', (_: unknown, v: bigint) => checkedInt(v < 0n ? -v : v))
    .registerFunction('MathNamespace.abs(uint): uint', (_: unknown, v: CelValue) => v)
    .registerFunction('MathNamespace.abs(double): double', (_: unknown, v: number) => Math.abs(v))
    .registerFunction('MathNamespace.sign(int): int', (_: unknown, v: bigint) =>
      v > 0n ? 1n : v < 0n ? -1n : 0n,
    )
    .registerFunction('MathNamespace.sign(uint): uint', (_: unknown, v: CelValue) =>
      makeUint((v as { value: bigint }).value > 0n ? 1n : 0n),
    )
    .registerFunction('MathNamespace.sign(double): double', (_: unknown, v: number) => Math.sign(v))
    .registerFunction('MathNamespace.sqrt(int): double', (_: unknown, v: bigint) => Math.sqrt(Number(v)))
    .registerFunction('MathNamespace.sqrt(uint): double', (_: unknown, v: CelValue) =>
      Math.sqrt(Number((v as { value: bigint }).value)),
    )
    .registerFunction('MathNamespace.sqrt(double): double', (_: unknown, v: number) => Math.sqrt(v))
    .registerFunction('MathNamespace.bitNot(int): int', (_: unknown, v: bigint) => ~v)
    .registerFunction('MathNamespace.bitNot(uint): uint', (_: unknown, v: CelValue) =>
      makeUint(BigInt.asUintN(64, ~(v as { value: bigint }).value)),
    )
    .registerFunction('MathNamespace.bitShiftLeft(int, int): int', (_: unknown, v: bigint, by: bigint) =>
      shiftOffset(by) >= 64n ? 0n : BigInt.asIntN(64, v << by),
    )
    .registerFunction('MathNamespace.bitShiftLeft(uint, int): uint', (_: unknown, v: CelValue, by: bigint) =>
      makeUint(shiftOffset(by) >= 64n ? 0n : BigInt.asUintN(64, (v as { value: bigint }).value << by)),
    )
    // On int the right shift is logical (zero-filling), as in cel-go.
    .registerFunction('MathNamespace.bitShiftRight(int, int): int', (_: unknown, v: bigint, by: bigint) =>
      shiftOffset(by) >= 64n ? 0n : BigInt.asIntN(64, BigInt.asUintN(64, v) >> by),
    )
    .registerFunction('MathNamespace.bitShiftRight(uint, int): uint', (_: unknown, v: CelValue, by: bigint) =>
      makeUint(shiftOffset(by) >= 64n ? 0n : (v as { value: bigint }).value >> by),
    );
  bitwise('bitAnd', (a, b) => a & b)(env);
  bitwise('bitOr', (a, b) => a | b)(env);
  bitwise('bitXor', (a, b) => a ^ b)(env);
  return env;
}
