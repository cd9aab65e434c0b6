// Fork addition (README.md): CEL map keys. A map literal with only string keys stays a plain
// object; one with int, uint or bool keys becomes a Map, so its keys keep their types (cel-js
// turned them into strings, and `{1: 'a'}` answered to the key '1'). Numeric keys of different
// types are equal, as numbers are (langdef.md, heterogeneous equality).
import {evaluationError} from './errors.js'
import {UnsignedInt} from './unsigned-int.js'
import {hasOwn} from './globals.js'

function isKey(key) {
  return (
    typeof key === 'string' ||
    typeof key === 'bigint' ||
    typeof key === 'boolean' ||
    key instanceof UnsignedInt
  )
}

function numericAlternative(key) {
  if (typeof key === 'number') return Number.isInteger(key) ? BigInt(key) : undefined
  if (key instanceof UnsignedInt) return key.valueOf()
  return undefined
}

/**
 * The value at `key` of a CEL map (a plain object or a Map), or undefined.
 * @param {object} map
 * @param {unknown} key
 */
export function mapGet(map, key) {
  if (map instanceof Map) {
    const value = map.get(key)
    if (value !== undefined) return value
    const alternative = numericAlternative(key)
    return alternative === undefined ? undefined : map.get(alternative)
  }
  if (typeof key !== 'string' || !map) return undefined
  return hasOwn(map, key) ? map[key] : undefined
}

/**
 * The map of a literal's evaluated entries: an error for a key that is not int, uint, bool or
 * string, or for a key given twice (langdef.md, "Aggregates").
 * @param {Array<[unknown, unknown]>} entries
 */
export function mapFromEntries(entries, ast) {
  let stringKeys = true
  for (let i = 0; i < entries.length; i++) {
    const key = entries[i][0]
    if (!isKey(key)) {
      throw evaluationError('invalid_map_key', `Unsupported map key type: ${key === null ? 'null' : typeof key}`, ast)
    }
    if (typeof key !== 'string') stringKeys = false
  }

  if (stringKeys) {
    const obj = {}
    for (let i = 0; i < entries.length; i++) {
      const [key, value] = entries[i]
      if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue
      if (hasOwn(obj, key)) throw duplicateKey(key, ast)
      obj[key] = value
    }
    return obj
  }

  const map = new Map()
  for (let i = 0; i < entries.length; i++) {
    const [key, value] = entries[i]
    if (mapGet(map, key) !== undefined || map.has(key)) throw duplicateKey(key, ast)
    map.set(key, value)
  }
  return map
}

function duplicateKey(key, ast) {
  return evaluationError('duplicate_map_key', `Failed with repeated key: ${key}`, ast)
}
