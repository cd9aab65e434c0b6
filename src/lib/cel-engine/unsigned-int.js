import {evaluationError} from './errors.js'
import {MIN_UINT, MAX_UINT} from './globals.js'

export class UnsignedInt {
  #value
  constructor(value) {
    this.verify(typeof value === 'bigint' ? value : BigInt(value))
  }

  get value() {
    return this.#value
  }

  valueOf() {
    return this.#value
  }

  toString() {
    return `${this.#value}`
  }

  verify(v) {
    if (v < MIN_UINT || v > MAX_UINT) {
      throw evaluationError('numeric_overflow', 'Unsigned integer overflow')
    }
    this.#value = v
  }

  get [Symbol.toStringTag]() {
    return `value = ${this.#value}`
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `UnsignedInteger { value: ${this.#value} }`
  }
}
