// weft's fork of @marcbachmann/cel-js 8.0.0. Copyright (c) 2025 Marc Bachmann, MIT License: the
// full text is in LICENSE beside this file; README.md lists weft's changes.
import {ParseError, EvaluationError, TypeError} from './errors.js'
import {parse, evaluate, check, Environment} from './evaluator.js'
import {serialize} from './serialize.js'
import {Optional} from './optional.js'
import {subMillisecondNanos} from './functions.js'

export {parse, evaluate, check, Environment, ParseError, EvaluationError, TypeError, serialize, Optional}
// Fork: the nanoseconds of a timestamp below its millisecond (weft's string(timestamp) needs them).
export {subMillisecondNanos}

export default {
  parse,
  evaluate,
  check,
  Environment,
  ParseError,
  EvaluationError,
  TypeError,
  serialize,
  Optional
}
