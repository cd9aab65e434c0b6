import {evaluationError} from './errors.js'
import {TYPES, Type} from './registry.js'
import {register as registerOptional} from './optional.js'
import {objKeys, arrayFrom, MIN_INT, MAX_INT} from './globals.js'
import {wallClock} from './time-zones.js'
import {UnsignedInt} from './unsigned-int.js'

// Fork: UnsignedInt lives in unsigned-int.js, so registry.js need not import this file (which
// imports registry.js).
export {UnsignedInt}

const billion = 1_000_000_000
const billionBigInt = 1_000_000_000n

const UNIT_NANOSECONDS = {
  h: 3_600_000_000_000n,
  m: 60_000_000_000n,
  s: billionBigInt,
  ms: 1_000_000n,
  us: 1_000n,
  µs: 1_000n,
  ns: 1n
}

export class Duration {
  #seconds
  #nanos

  constructor(seconds, nanos = 0) {
    this.#seconds = BigInt(seconds)
    this.#nanos = nanos
    // Fork: a duration is limited to int64 nanoseconds (langdef.md "Overflow").
    const total = this.#seconds * billionBigInt + BigInt(nanos)
    if (total > MAX_INT || total < MIN_INT) {
      throw evaluationError('numeric_overflow', 'duration out of range')
    }
  }

  /** The duration of a number of nanoseconds (seconds and nanos carry the same sign). */
  static fromNanoseconds(total) {
    return new Duration(total / billionBigInt, Number(total % billionBigInt))
  }

  get totalNanoseconds() {
    return this.#seconds * billionBigInt + BigInt(this.#nanos)
  }

  get seconds() {
    return this.#seconds
  }

  get nanos() {
    return this.#nanos
  }

  valueOf() {
    return Number(this.#seconds) * 1000 + this.#nanos / 1_000_000
  }

  static fromMilliseconds(ms) {
    const totalNanos = BigInt(Math.trunc(ms * 1_000_000))
    const seconds = totalNanos / billionBigInt
    const nanos = Number(totalNanos % billionBigInt)
    return new Duration(seconds, nanos)
  }

  addDuration(other) {
    return Duration.fromNanoseconds(this.totalNanoseconds + other.totalNanoseconds)
  }

  subtractDuration(other) {
    return Duration.fromNanoseconds(this.totalNanoseconds - other.totalNanoseconds)
  }

  extendTimestamp(ts) {
    return timestampFromNanoseconds(timestampNanoseconds(ts) + this.totalNanoseconds)
  }

  subtractTimestamp(ts) {
    return timestampFromNanoseconds(timestampNanoseconds(ts) - this.totalNanoseconds)
  }

  toString() {
    const nanos = this.#nanos
      ? (this.#nanos / billion)
          .toLocaleString('en-US', {useGrouping: false, maximumFractionDigits: 9})
          .slice(1)
      : ''
    return `${this.#seconds}${nanos}s`
  }

  getHours() {
    return this.#seconds / 3600n
  }

  getMinutes() {
    return this.#seconds / 60n
  }

  getSeconds() {
    return this.#seconds
  }

  getMilliseconds() {
    return this.#seconds * 1000n + BigInt(Math.floor(this.#nanos / 1000000))
  }

  get [Symbol.toStringTag]() {
    return 'google.protobuf.Duration'
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `google.protobuf.Duration { seconds: ${this.#seconds}, nanos: ${this.#nanos} }`
  }
}

// Fork: timestamps are limited to 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999999Z
// (langdef.md "Overflow"); arithmetic that leaves the range is an error.
const MIN_TIMESTAMP_MS = -62135596800000
const MAX_TIMESTAMP_MS = 253402300799999

// Fork: a timestamp is a Date (milliseconds) with the nanoseconds below its millisecond kept
// beside it, so timestamps have cel-spec's nanosecond precision. A Date without an entry (a
// binding such as `now`) has none.
const SUB_MILLISECOND_NANOS = new WeakMap()
const millionBigInt = 1_000_000n

/** The nanoseconds (0..999999) of a timestamp below its millisecond. */
export function subMillisecondNanos(date) {
  return SUB_MILLISECOND_NANOS.get(date) ?? 0
}

/** The nanoseconds of a timestamp since the epoch. */
export function timestampNanoseconds(date) {
  return BigInt(date.getTime()) * millionBigInt + BigInt(subMillisecondNanos(date))
}

/** The timestamp of a number of nanoseconds since the epoch, or a range error. */
export function timestampFromNanoseconds(nanos) {
  let ms = nanos / millionBigInt
  if (ms * millionBigInt > nanos) ms -= 1n
  const date = checkedTimestamp(Number(ms))
  const sub = Number(nanos - ms * millionBigInt)
  if (sub) SUB_MILLISECOND_NANOS.set(date, sub)
  return date
}

/** -1, 0 or 1 as timestamp `a` is before, at or after `b`. */
export function compareTimestamps(a, b) {
  const d = a.getTime() - b.getTime() || subMillisecondNanos(a) - subMillisecondNanos(b)
  return d < 0 ? -1 : d > 0 ? 1 : 0
}

/** The timestamp of a number of milliseconds since the epoch, or a range error. */
export function checkedTimestamp(ms) {
  if (ms >= MIN_TIMESTAMP_MS && ms <= MAX_TIMESTAMP_MS) return new Date(ms)
  throw evaluationError('numeric_overflow', 'timestamp out of range')
}

// Fork: the characters of Unicode's White_Space property, which strings.trim() removes (JS's
// trim() also removes U+FEFF and keeps U+0085).
const UNICODE_SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000'
const TRIM = new RegExp(`^[${UNICODE_SPACE}]+|[${UNICODE_SPACE}]+$`, 'g')

export function registerFunctions(registry) {
  const sync = {async: false}
  const functionOverload = (sig, handler) => registry.registerFunctionOverload(sig, handler, sync)
  const identity = (v) => v

  functionOverload('dyn(dyn): dyn', identity)

  for (const _t in TYPES) {
    const type = TYPES[_t]
    if (!(type instanceof Type)) continue
    functionOverload(`type(${type.name}): type`, () => type)
  }

  functionOverload('bool(bool): bool', identity)
  functionOverload('bool(string): bool', (v) => {
    switch (v) {
      case '1':
      case 't':
      case 'true':
      case 'TRUE':
      case 'True':
        return true
      case '0':
      case 'f':
      case 'false':
      case 'FALSE':
      case 'False':
        return false
      default:
        throw evaluationError(
          'bool_conversion_error',
          `bool() conversion error: invalid string value "${v}"`
        )
    }
  })

  functionOverload('size(string): int', (v) => BigInt(stringSize(v)))
  functionOverload('size(bytes): int', (v) => BigInt(v.length))
  functionOverload('size(list): int', (v) => BigInt(v.length ?? v.size))
  functionOverload('size(map): int', (v) => BigInt(v instanceof Map ? v.size : objKeys(v).length))
  functionOverload('string.size(): int', (v) => BigInt(stringSize(v)))
  functionOverload('bytes.size(): int', (v) => BigInt(v.length))
  functionOverload('list.size(): int', (v) => BigInt(v.length ?? v.size))
  functionOverload('map.size(): int', (v) => BigInt(v instanceof Map ? v.size : objKeys(v).length))

  functionOverload('bytes(string): bytes', (v) => ByteOpts.fromString(v))
  functionOverload('bytes(bytes): bytes', identity)

  functionOverload('double(double): double', identity)
  functionOverload('double(int): double', (v) => Number(v))
  functionOverload('double(uint): double', (v) => Number(v))
  functionOverload('double(string): double', (v) => {
    if (!v || v !== v.trim())
      throw evaluationError(
        'double_conversion_error',
        'double() type error: cannot convert to double'
      )

    const s = v.toLowerCase()
    switch (s) {
      case 'inf':
      case '+inf':
      case 'infinity':
      case '+infinity':
        return Number.POSITIVE_INFINITY
      case '-inf':
      case '-infinity':
        return Number.NEGATIVE_INFINITY
      case 'nan':
        return Number.NaN
      default: {
        const parsed = Number(v)
        if (!Number.isNaN(parsed)) return parsed
        throw evaluationError(
          'double_conversion_error',
          'double() type error: cannot convert to double'
        )
      }
    }
  })

  functionOverload('int(int): int', identity)
  // Fork: "Double to int conversions are limited to (minInt, maxInt) non-inclusive" (langdef.md).
  functionOverload('int(double): int', (v) => {
    if (v > -9223372036854775808 && v < 9223372036854775808) return BigInt(Math.trunc(v))
    throw evaluationError('numeric_overflow', 'int() type error: integer overflow')
  })

  functionOverload('int(string): int', (v) => {
    if (v !== v.trim() || v.length > 20 || v.includes('0x')) {
      throw evaluationError('int_conversion_error', 'int() type error: cannot convert to int')
    }

    try {
      const num = BigInt(v)
      if (num <= MAX_INT && num >= MIN_INT) return num
    } catch (_e) {}

    throw evaluationError('int_conversion_error', 'int() type error: cannot convert to int')
  })

  functionOverload('uint(uint): uint', identity)
  functionOverload('uint(int): uint', (v) => {
    try {
      return new UnsignedInt(v)
    } catch (e) {
      throw evaluationError('uint_conversion_error', 'uint() type error: cannot convert to uint')
    }
  })
  functionOverload('uint(double): uint', (v) => {
    try {
      if (!(v > -1 && v < 18446744073709551616)) throw new RangeError('out of range')
      return new UnsignedInt(Math.trunc(v))
    } catch (e) {
      throw evaluationError('numeric_overflow', 'uint() type error: unsigned integer overflow')
    }
  })

  functionOverload('uint(string): uint', (v) => {
    if (v !== v.trim() || v.length > 20 || v.includes('0x')) {
      throw evaluationError('uint_conversion_error', 'uint() type error: cannot convert to uint')
    }

    try {
      return new UnsignedInt(v)
    } catch (e) {
      throw evaluationError('uint_conversion_error', 'uint() type error: cannot convert to uint')
    }
  })

  functionOverload('string(string): string', identity)
  functionOverload('string(bool): string', (v) => `${v}`)
  functionOverload('string(int): string', (v) => `${v}`)
  functionOverload('string(uint): string', (v) => `${v}`)
  functionOverload('string(bytes): string', (v) => ByteOpts.toUtf8(v))
  functionOverload('string(double): string', (v) => {
    if (v === Infinity) return '+Inf'
    if (v === -Infinity) return '-Inf'
    return `${v}`
  })

  functionOverload('string.startsWith(string): bool', (a, b) => a.startsWith(b))
  functionOverload('string.endsWith(string): bool', (a, b) => a.endsWith(b))
  functionOverload('string.contains(string): bool', (a, b) => a.includes(b))
  // Fork: only ASCII letters change case; other characters stay as they are.
  functionOverload('string.lowerAscii(): string', (a) =>
    a.replace(/[A-Z]+/g, (s) => s.toLowerCase())
  )
  functionOverload('string.upperAscii(): string', (a) =>
    a.replace(/[a-z]+/g, (s) => s.toUpperCase())
  )
  functionOverload('string.trim(): string', (a) => a.replace(TRIM, ''))

  functionOverload('string.indexOf(string): int', (string, search) =>
    BigInt(string.indexOf(search))
  )
  functionOverload('string.indexOf(string, int): int', (string, search, fromIndex) => {
    if (search === '') return fromIndex

    fromIndex = Number(fromIndex)
    if (fromIndex < 0 || fromIndex >= string.length) {
      throw evaluationError(
        'index_out_of_range',
        'string.indexOf(search, fromIndex): fromIndex out of range'
      )
    }

    return BigInt(string.indexOf(search, fromIndex))
  })

  functionOverload('string.lastIndexOf(string): int', (string, search) =>
    BigInt(string.lastIndexOf(search))
  )

  functionOverload('string.lastIndexOf(string, int): int', (string, search, fromIndex) => {
    if (search === '') return fromIndex

    fromIndex = Number(fromIndex)
    if (fromIndex < 0 || fromIndex >= string.length) {
      throw evaluationError(
        'index_out_of_range',
        'string.lastIndexOf(search, fromIndex): fromIndex out of range'
      )
    }

    return BigInt(string.lastIndexOf(search, fromIndex))
  })

  functionOverload('string.substring(int): string', (string, start) => {
    start = Number(start)
    if (start < 0 || start > string.length) {
      throw evaluationError(
        'index_out_of_range',
        'string.substring(start, end): start index out of range'
      )
    }

    return string.substring(start)
  })

  functionOverload('string.substring(int, int): string', (string, start, end) => {
    start = Number(start)
    if (start < 0 || start > string.length) {
      throw evaluationError(
        'index_out_of_range',
        'string.substring(start, end): start index out of range'
      )
    }

    end = Number(end)
    if (end < start || end > string.length) {
      throw evaluationError(
        'index_out_of_range',
        'string.substring(start, end): end index out of range'
      )
    }

    return string.substring(start, end)
  })

  functionOverload('string.matches(string): bool', (a, b) => {
    try {
      return new RegExp(b).test(a)
    } catch (_err) {
      throw evaluationError('invalid_regular_expression', `Invalid regular expression: ${b}`)
    }
  })

  functionOverload('string.split(string): list<string>', (s, sep) => s.split(sep))
  functionOverload('string.split(string, int): list<string>', (s, sep, l) => {
    l = Number(l)
    if (l === 0) return []
    const parts = s.split(sep)
    if (l < 0 || parts.length <= l) return parts
    const limited = parts.slice(0, l - 1)
    limited.push(parts.slice(l - 1).join(sep))
    return limited
  })

  functionOverload('list<string>.join(): string', (v) => {
    for (let i = 0; i < v.length; i++) {
      if (typeof v[i] !== 'string') {
        throw evaluationError(
          'invalid_list_element_type',
          'string.join(): list must contain only strings'
        )
      }
    }
    return v.join('')
  })

  functionOverload('list<string>.join(string): string', (v, sep) => {
    for (let i = 0; i < v.length; i++) {
      if (typeof v[i] !== 'string') {
        throw evaluationError(
          'invalid_list_element_type',
          'string.join(separator): list must contain only strings'
        )
      }
    }
    return v.join(sep)
  })

  const textEncoder = new TextEncoder('utf8')
  const textDecoder = new TextDecoder('utf8')
  const ByteOpts =
    typeof Buffer !== 'undefined'
      ? {
          byteLength: (v) => Buffer.byteLength(v),
          fromString: (str) => Buffer.from(str, 'utf8'),
          toHex: (b) => Buffer.prototype.hexSlice.call(b, 0, b.length),
          toBase64: (b) => Buffer.prototype.base64Slice.call(b, 0, b.length),
          toUtf8: (b) => Buffer.prototype.utf8Slice.call(b, 0, b.length),
          jsonParse: (b) => JSON.parse(b)
        }
      : {
          textEncoder: new TextEncoder('utf8'),
          byteLength: (v) => textEncoder.encode(v).length,
          fromString: (str) => textEncoder.encode(str),
          toHex: Uint8Array.prototype.toHex
            ? (b) => b.toHex()
            : (b) => arrayFrom(b, (i) => i.toString(16).padStart(2, '0')).join(''),
          toBase64: Uint8Array.prototype.toBase64
            ? (b) => b.toBase64()
            : (b) => btoa(arrayFrom(b, (i) => String.fromCodePoint(i)).join('')),
          toUtf8: (b) => textDecoder.decode(b),
          jsonParse: (b) => JSON.parse(textEncoder.decode(b))
        }

  functionOverload('bytes.json(): map', ByteOpts.jsonParse)
  functionOverload('bytes.hex(): string', ByteOpts.toHex)
  functionOverload('bytes.string(): string', ByteOpts.toUtf8)
  functionOverload('bytes.base64(): string', ByteOpts.toBase64)
  functionOverload('bytes.at(int): int', (b, index) => {
    if (index < 0 || index >= b.length) {
      throw evaluationError('index_out_of_range', 'Bytes index out of range')
    }
    return BigInt(b[index])
  })

  const TS = 'google.protobuf.Timestamp'
  const GPD = 'google.protobuf.Duration'
  const TimestampType = registry.registerType(TS, Date).typeType
  const DurationType = registry.registerType(GPD, Duration).typeType
  registry.registerConstant('google', 'map<string, map<string, type>>', {
    protobuf: {Duration: DurationType, Timestamp: TimestampType}
  })

  // Fork: the wall clock of a zone as a UTC date, read with the UTC getters (see time-zones.js).
  function tzDate(d, timeZone) {
    const wall = wallClock(d, timeZone)
    return {
      getDate: () => wall.getUTCDate(),
      getDay: () => wall.getUTCDay(),
      getFullYear: () => wall.getUTCFullYear(),
      getHours: () => wall.getUTCHours(),
      getMinutes: () => wall.getUTCMinutes(),
      getMonth: () => wall.getUTCMonth(),
      getSeconds: () => wall.getUTCSeconds(),
      wall
    }
  }

  function getDayOfYear(d, tz) {
    const wall = tz ? wallClock(d, tz) : d
    const start = new Date(0)
    start.setUTCFullYear(wall.getUTCFullYear(), 0, 1)
    return BigInt(
      Math.floor((wall.getTime() - start.getTime()) / 86_400_000)
    )
  }

  functionOverload(`timestamp(string): ${TS}`, (v) => {
    if (v.length < 20 || v.length > 30) {
      throw evaluationError('invalid_timestamp', 'timestamp() requires a string in ISO 8601 format')
    }

    const d = new Date(v)
    if (d <= 253402300799999 && d >= -62135596800000) {
      // Fork: Date keeps milliseconds; the fraction's digits beyond them are kept beside it.
      const digits = /\.\d{3}(\d{1,6})/.exec(v)?.[1]
      if (digits) SUB_MILLISECOND_NANOS.set(d, Number(digits.padEnd(6, '0')))
      return d
    }
    throw evaluationError('invalid_timestamp', 'timestamp() requires a string in ISO 8601 format')
  })

  functionOverload(`timestamp(int): ${TS}`, (i) => {
    i = Number(i) * 1000
    if (i <= 253402300799999 && i >= -62135596800000) return new Date(i)
    throw evaluationError(
      'invalid_timestamp',
      'timestamp() requires a valid integer unix timestamp'
    )
  })

  functionOverload(`${TS}.getDate(): int`, (d) => BigInt(d.getUTCDate()))
  functionOverload(`${TS}.getDate(string): int`, (d, tz) => BigInt(tzDate(d, tz).getDate()))
  functionOverload(`${TS}.getDayOfMonth(): int`, (d) => BigInt(d.getUTCDate() - 1))
  functionOverload(`${TS}.getDayOfMonth(string): int`, (d, tz) =>
    BigInt(tzDate(d, tz).getDate() - 1)
  )
  functionOverload(`${TS}.getDayOfWeek(): int`, (d) => BigInt(d.getUTCDay()))
  functionOverload(`${TS}.getDayOfWeek(string): int`, (d, tz) => BigInt(tzDate(d, tz).getDay()))
  functionOverload(`${TS}.getDayOfYear(): int`, getDayOfYear)
  functionOverload(`${TS}.getDayOfYear(string): int`, getDayOfYear)
  functionOverload(`${TS}.getFullYear(): int`, (d) => BigInt(d.getUTCFullYear()))
  functionOverload(`${TS}.getFullYear(string): int`, (d, tz) => BigInt(tzDate(d, tz).getFullYear()))
  functionOverload(`${TS}.getHours(): int`, (d) => BigInt(d.getUTCHours()))
  functionOverload(`${TS}.getHours(string): int`, (d, tz) => BigInt(tzDate(d, tz).getHours()))
  functionOverload(`${TS}.getMilliseconds(): int`, (d) => BigInt(d.getUTCMilliseconds()))
  functionOverload(`${TS}.getMilliseconds(string): int`, (d) => BigInt(d.getUTCMilliseconds()))
  functionOverload(`${TS}.getMinutes(): int`, (d) => BigInt(d.getUTCMinutes()))
  functionOverload(`${TS}.getMinutes(string): int`, (d, tz) => BigInt(tzDate(d, tz).getMinutes()))
  functionOverload(`${TS}.getMonth(): int`, (d) => BigInt(d.getUTCMonth()))
  functionOverload(`${TS}.getMonth(string): int`, (d, tz) => BigInt(tzDate(d, tz).getMonth()))
  functionOverload(`${TS}.getSeconds(): int`, (d) => BigInt(d.getUTCSeconds()))
  functionOverload(`${TS}.getSeconds(string): int`, (d, tz) => BigInt(tzDate(d, tz).getSeconds()))

  const parseDurationPattern = /(\d*\.?\d*)(ns|us|µs|ms|s|m|h)/

  // parseDuration parses a golang-style duration string.
  // A duration string is a possibly signed sequence of decimal numbers,
  // each with optional fraction and a unit suffix,
  // such as "300ms", "-1.5h" or "2h45m". Valid time units are "ns", "us" (or "µs"), "ms", "s", "m", "h".
  // https://pkg.go.dev/time#ParseDuration
  function parseDuration(/** @type {string} */ string) {
    if (!string) throw evaluationError('invalid_duration', `Invalid duration string: ''`)

    const isNegative = string[0] === '-'
    if (string[0] === '-' || string[0] === '+') string = string.slice(1)

    let nanoseconds = BigInt(0)
    while (true) {
      const match = parseDurationPattern.exec(string)
      if (!match) throw evaluationError('invalid_duration', `Invalid duration string: ${string}`)

      if (match.index !== 0)
        throw evaluationError('invalid_duration', `Invalid duration string: ${string}`)
      string = string.slice(match[0].length)

      const unitNanos = UNIT_NANOSECONDS[match[2]]
      const [intPart = '0', fracPart = ''] = match[1].split('.')
      const intVal = BigInt(intPart) * unitNanos
      const fracNanos = fracPart
        ? (BigInt(fracPart.slice(0, 13).padEnd(13, '0')) * unitNanos) / 10_000_000_000_000n
        : 0n

      nanoseconds += intVal + fracNanos
      if (string === '') break
    }

    const seconds = nanoseconds >= billionBigInt ? nanoseconds / billionBigInt : 0n
    const nanos = Number(nanoseconds % billionBigInt)

    if (isNegative) return new Duration(-seconds, -nanos)
    return new Duration(seconds, nanos)
  }

  functionOverload(`duration(string): google.protobuf.Duration`, (s) => parseDuration(s))
  functionOverload(`google.protobuf.Duration.getHours(): int`, (d) => d.getHours())
  functionOverload(`google.protobuf.Duration.getMinutes(): int`, (d) => d.getMinutes())
  functionOverload(`google.protobuf.Duration.getSeconds(): int`, (d) => d.getSeconds())
  functionOverload(`google.protobuf.Duration.getMilliseconds(): int`, (d) => d.getMilliseconds())
  registerOptional(registry)
}

function stringSize(str) {
  let count = 0
  for (const c of str) count++ // eslint-disable-line no-unused-vars
  return count
}
