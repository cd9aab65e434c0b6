import {UnsignedInt, Duration, compareTimestamps, timestampNanoseconds} from './functions.js'
import {evaluationError} from './errors.js'
import {mapGet} from './map-keys.js'
import {isArray, hasOwn, objKeys, MIN_UINT, MIN_INT, MAX_INT} from './globals.js'

export function registerOverloads(registry) {
  const unaryOverload = (op, t, h, ret) => registry.unaryOverload(op, t, h, ret, false)
  const binaryOverload = (l, op, r, h, ret) => registry.binaryOverload(l, op, r, h, ret, false)

  function verifyInteger(v, ast) {
    if (v <= MAX_INT && v >= MIN_INT) return v
    throw evaluationError('numeric_overflow', `integer overflow: ${v}`, ast)
  }

  function throwDivisionByZero(ast) {
    throw evaluationError('division_by_zero', 'division by zero', ast)
  }

  function throwModuloByZero(ast) {
    throw evaluationError('modulo_by_zero', 'modulo by zero', ast)
  }

  unaryOverload('!', 'bool', (a) => !a)
  unaryOverload('-', 'int', (a, ast) => verifyInteger(-a, ast))
  binaryOverload('dyn<int>', `==`, `double`, (a, b) => compareNumbers(a, b) === 0)
  binaryOverload('dyn<int>', `==`, `uint`, (a, b) => a == b.valueOf()) // eslint-disable-line eqeqeq
  binaryOverload('int', '*', 'int', (a, b, ast) => verifyInteger(a * b, ast))
  binaryOverload('int', '+', 'int', (a, b, ast) => verifyInteger(a + b, ast))
  binaryOverload('int', '-', 'int', (a, b, ast) => verifyInteger(a - b, ast))
  binaryOverload('int', '/', 'int', (a, b, ast) => {
    if (b === MIN_UINT) return throwDivisionByZero(ast)
    return verifyInteger(a / b, ast)
  })
  binaryOverload('int', '%', 'int', (a, b, ast) => {
    if (b === MIN_UINT) return throwModuloByZero(ast)
    return a % b
  })

  unaryOverload('-', 'double', (a) => -a)
  binaryOverload('double', '*', 'double', (a, b) => a * b)
  binaryOverload('double', '+', 'double', (a, b) => a + b)
  binaryOverload('double', '-', 'double', (a, b) => a - b)
  binaryOverload('double', '/', 'double', (a, b) => a / b)

  binaryOverload('string', '+', 'string', (a, b) => a + b)
  binaryOverload('list<V>', '+', 'list<V>', (a, b) => [...a, ...b])
  binaryOverload('bytes', '+', 'bytes', (a, b) => {
    if (!a.length) return b
    if (!b.length) return a

    const result = new Uint8Array(a.length + b.length)
    result.set(a, 0)
    result.set(b, a.length)
    return result
  })

  const GPD = 'google.protobuf.Duration'
  binaryOverload(GPD, '+', GPD, (a, b) => a.addDuration(b))
  binaryOverload(GPD, '-', GPD, (a, b) => a.subtractDuration(b))
  binaryOverload(GPD, '==', GPD, (a, b) => a.seconds === b.seconds && a.nanos === b.nanos)

  const GPT = 'google.protobuf.Timestamp'
  binaryOverload(GPT, '==', GPT, (a, b) => compareTimestamps(a, b) === 0)
  binaryOverload(
    GPT,
    '-',
    GPT,
    (a, b) => Duration.fromNanoseconds(timestampNanoseconds(a) - timestampNanoseconds(b)),
    GPD
  )
  binaryOverload(GPT, '-', GPD, (a, b) => b.subtractTimestamp(a))
  binaryOverload(GPT, '+', GPD, (a, b) => b.extendTimestamp(a))
  binaryOverload(GPD, '+', GPT, (a, b) => a.extendTimestamp(b), GPT)

  function listIncludes(value, list, ast, ev) {
    if (list instanceof Set && list.has(value)) return true
    for (const v of list) if (isEqual(value, v, ast, ev)) return true
    return false
  }

  function mapIncludes(a, b) {
    return mapGet(b, a) !== undefined
  }

  function listMembership(value, list, ast, ev) {
    return listIncludes(value, list, ast, ev)
  }

  binaryOverload('V', 'in', 'list<V>', listMembership)
  binaryOverload('K', 'in', 'map<K, V>', mapIncludes)

  for (const t of ['type', 'null', 'bool', 'string', 'int', 'double']) {
    binaryOverload(t, '==', t, (a, b) => a === b)
  }

  binaryOverload('bytes', `==`, 'bytes', (a, b) => {
    if (a === b) return true

    let i = a.length
    if (i !== b.length) return false
    while (i--) if (a[i] !== b[i]) return false
    return true
  })

  binaryOverload('list<V>', `==`, 'list<V>', (a, b, ast, ev) => {
    if (a === b) return true

    if (isArray(a) && isArray(b)) {
      const length = a.length
      if (length !== b.length) return false
      for (let i = 0; i < length; i++) {
        if (!isEqual(a[i], b[i], ast, ev)) return false
      }
      return true
    }

    if (a instanceof Set && b instanceof Set) {
      if (a.size !== b.size) return false
      for (const value of a) if (!b.has(value)) return false
      return true
    }

    const arr = a instanceof Set ? b : a
    const set = a instanceof Set ? a : b
    if (!isArray(arr)) return false
    if (arr.length !== set?.size) return false
    for (let i = 0; i < arr.length; i++) if (!set.has(arr[i])) return false
    return true
  })

  binaryOverload('map<K, V>', `==`, 'map<K, V>', (a, b, ast, ev) => {
    if (a === b) return true

    if (a instanceof Map && b instanceof Map) {
      if (a.size !== b.size) return false
      for (const [key, value] of a)
        if (!(b.has(key) && isEqual(value, b.get(key), ast, ev))) return false
      return true
    }

    if (a instanceof Map || b instanceof Map) {
      const obj = a instanceof Map ? b : a
      const map = a instanceof Map ? a : b
      const keysObj = objKeys(obj)
      if (map.size !== keysObj.length) return false
      for (const [key, value] of map) {
        if (!(key in obj && isEqual(value, obj[key], ast, ev))) return false
      }
      return true
    }

    const keysA = objKeys(a)
    const keysB = objKeys(b)
    if (keysA.length !== keysB.length) return false

    for (let i = 0; i < keysA.length; i++) {
      const key = keysA[i]
      if (!(key in b && isEqual(a[key], b[key], ast, ev))) return false
    }
    return true
  })

  binaryOverload('uint', '==', 'uint', (a, b) => a.valueOf() === b.valueOf())
  binaryOverload('dyn<uint>', `==`, `double`, (a, b) => compareNumbers(a.valueOf(), b) === 0)

  binaryOverload('uint', '+', 'uint', (a, b) => new UnsignedInt(a.valueOf() + b.valueOf()))
  binaryOverload('uint', '-', 'uint', (a, b) => new UnsignedInt(a.valueOf() - b.valueOf()))
  binaryOverload('uint', '*', 'uint', (a, b) => new UnsignedInt(a.valueOf() * b.valueOf()))
  binaryOverload('uint', '/', 'uint', (a, b, ast) => {
    if (b.valueOf() === MIN_UINT) return throwDivisionByZero(ast)
    return new UnsignedInt(a.valueOf() / b.valueOf())
  })
  binaryOverload('uint', '%', 'uint', (a, b, ast) => {
    if (b.valueOf() === MIN_UINT) return throwModuloByZero(ast)
    return new UnsignedInt(a.valueOf() % b.valueOf())
  })

  // Fork: timestamps compare to the nanosecond.
  binaryOverload(GPT, '<', GPT, (a, b) => compareTimestamps(a, b) < 0)
  binaryOverload(GPT, '<=', GPT, (a, b) => compareTimestamps(a, b) <= 0)
  binaryOverload(GPT, '>', GPT, (a, b) => compareTimestamps(a, b) > 0)
  binaryOverload(GPT, '>=', GPT, (a, b) => compareTimestamps(a, b) >= 0)

  for (const [left, right] of [
    ['bool', 'bool'],
    ['int', 'int'],
    ['uint', 'uint'],
    ['double', 'double'],
    ['string', 'string'],
    ['google.protobuf.Duration', 'google.protobuf.Duration'],
    ['int', 'uint'],
    ['int', 'double'],
    ['double', 'int'],
    ['double', 'uint'],
    ['uint', 'int'],
    ['uint', 'double']
  ]) {
    if (left === right) {
      binaryOverload(left, '<', right, (a, b) => a < b)
      binaryOverload(left, '<=', right, (a, b) => a <= b)
      binaryOverload(left, '>', right, (a, b) => a > b)
      binaryOverload(left, '>=', right, (a, b) => a >= b)
      continue
    }
    // Fork: integers and doubles compare on one number line, as cel-go and the conformance
    // suite do: an integer is compared as a double unless the double lies outside int64.
    binaryOverload(left, '<', right, (a, b) => compareNumbers(a.valueOf(), b.valueOf()) < 0)
    binaryOverload(left, '<=', right, (a, b) => compareNumbers(a.valueOf(), b.valueOf()) <= 0)
    binaryOverload(left, '>', right, (a, b) => compareNumbers(a.valueOf(), b.valueOf()) > 0)
    binaryOverload(left, '>=', right, (a, b) => compareNumbers(a.valueOf(), b.valueOf()) >= 0)
  }
}

/**
 * Fork: -1, 0 or 1 as number `a` is below, equal to or above `b` (each a bigint or a double), or
 * NaN when either is NaN. A bigint and a double compare as cel-go and the conformance suite do:
 * the integer converted to a double, so 2^63-1 equals 2^63.0.
 */
export function compareNumbers(a, b) {
  if (typeof a !== typeof b) {
    a = Number(a)
    b = Number(b)
  }
  return a < b ? -1 : a > b ? 1 : a === b ? 0 : NaN
}

/** Whether two CEL values are equal; values of different types are not (except numbers). */
export function isEqual(a, b, ast, ev) {
  if (a === b) return true
  switch (typeof a) {
    case 'undefined':
    case 'string':
    case 'boolean':
      return false
    case 'bigint':
    case 'number':
      if (typeof b === 'number' || typeof b === 'bigint') return compareNumbers(a, b) === 0
      return false
    case 'object':
      if (typeof b !== 'object') return false
      const leftType = ev.debugType(a)
      const rightType = ev.debugType(b)
      if (leftType !== rightType) return false

      const overload = ev.registry.findBinaryOverload('==', leftType, rightType)
      if (!overload) return false
      return overload.handler(a, b, ast, ev)
  }
  throw evaluationError('invalid_comparison_type', `Cannot compare values of type ${typeof a}`, ast)
}
