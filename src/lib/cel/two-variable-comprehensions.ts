import type { Environment } from '../cel-engine/index.js';
import { makeUint, mapEntries } from './cel-values.js';

/** What cel-js hands a macro: the call's syntax nodes. */
interface MacroInput {
  args: SyntaxNode[];
  receiver: SyntaxNode;
}
interface SyntaxNode {
  op: string;
  args: unknown;
}
interface CelType {
  kind: string;
  type?: string;
  keyType?: CelType;
  valueType?: CelType;
}
interface Scope {
  forkWithVariable(name: string, type: CelType): Scope;
  setIterValue(value: unknown, evaluator: unknown): Scope;
}
interface Checker {
  check(node: SyntaxNode, scope: Scope): CelType;
  getType(name: string): CelType;
  registry: { getListType(item: CelType): CelType; getMapType(key: CelType, value: CelType): CelType };
}
interface Evaluator {
  run(node: SyntaxNode, scope: Scope): unknown;
  tryEval(node: SyntaxNode, scope: Scope): unknown;
}

/** The comprehension of one call: its two variables, its range, and its argument expressions. */
interface Comprehension {
  first: string;
  second: string;
  range: SyntaxNode;
  body: SyntaxNode[];
  firstType?: CelType;
  secondType?: CelType;
}

type Reduce = (
  evaluator: Evaluator,
  comprehension: Comprehension,
  pairs: Iterable<[unknown, unknown]>,
  scope: (pair: [unknown, unknown]) => Scope,
) => unknown;

function identifier(node: SyntaxNode | undefined, macro: string): string {
  if (node?.op !== 'id' || typeof node.args !== 'string')
    throw new Error(`${macro}: the iteration variables must be simple identifiers`);
  return node.args;
}

/**
 * A key of a map cel-js holds as a JS object, in its checked type: cel-js keeps a literal such as
 * `{6: 'six'}` as an object, whose keys are strings.
 */
function typedKey(key: unknown, type: CelType | undefined): unknown {
  if (typeof key !== 'string') return key;
  if (type?.type === 'int' && /^-?\d+$/.test(key)) return BigInt(key);
  if (type?.type === 'uint' && /^\d+$/.test(key)) return makeUint(BigInt(key));
  if (type?.type === 'bool' && (key === 'true' || key === 'false')) return key === 'true';
  return key;
}

/** The (index or key, value) pairs of a list or a map. */
function pairsOf(range: unknown, macro: string, keyType: CelType | undefined): [unknown, unknown][] {
  if (Array.isArray(range)) return range.map((item, index) => [BigInt(index), item]);
  if (range instanceof Set) return [...range].map((item, index) => [BigInt(index), item]);
  if (range instanceof Map) return mapEntries(range);
  if (range !== null && typeof range === 'object')
    return mapEntries(range).map(([key, value]) => [typedKey(key, keyType), value]);
  throw new Error(`${macro}: the range must be a list or a map`);
}

function bool(value: unknown, macro: string): boolean {
  if (typeof value !== 'boolean') throw new Error(`${macro}: the predicate must return bool`);
  return value;
}

/** A quantifier: `all` (false wins over errors), `exists` (true wins over errors). */
function quantifier(stopOn: boolean): Reduce {
  return (evaluator, comprehension, pairs, scope) => {
    let error: Error | undefined;
    for (const pair of pairs) {
      const outcome = evaluator.tryEval(comprehension.body[0] as SyntaxNode, scope(pair));
      // A predicate that is not a bool is an error like any other, absorbed when the result is decided.
      if (outcome instanceof Error) error ??= outcome;
      else if (typeof outcome !== 'boolean')
        error ??= new Error('quantifier: the predicate must return bool');
      else if (outcome === stopOn) return stopOn;
    }
    if (error !== undefined) throw error;
    return !stopOn;
  };
}

const existsOne: Reduce = (evaluator, comprehension, pairs, scope) => {
  let count = 0;
  for (const pair of pairs)
    if (bool(evaluator.run(comprehension.body[0] as SyntaxNode, scope(pair)), 'existsOne')) count++;
  return count === 1;
};

/** The pairs a `transform…` macro keeps (all, or those its filter argument accepts) and their scope. */
function* kept(
  evaluator: Evaluator,
  comprehension: Comprehension,
  pairs: Iterable<[unknown, unknown]>,
  scope: (pair: [unknown, unknown]) => Scope,
): Generator<[[unknown, unknown], Scope]> {
  const [filter] = comprehension.body.length === 2 ? comprehension.body : [];
  for (const pair of pairs) {
    const inner = scope(pair);
    if (filter && !bool(evaluator.run(filter, inner), 'transform filter')) continue;
    yield [pair, inner];
  }
}

const transformList: Reduce = (evaluator, comprehension, pairs, scope) => {
  const transform = comprehension.body.at(-1) as SyntaxNode;
  return [...kept(evaluator, comprehension, pairs, scope)].map(([, inner]) =>
    evaluator.run(transform, inner),
  );
};

const transformMap: Reduce = (evaluator, comprehension, pairs, scope) => {
  const transform = comprehension.body.at(-1) as SyntaxNode;
  const out = new Map<unknown, unknown>();
  for (const [[key], inner] of kept(evaluator, comprehension, pairs, scope))
    out.set(key, evaluator.run(transform, inner));
  return out;
};

const transformMapEntry: Reduce = (evaluator, comprehension, pairs, scope) => {
  const transform = comprehension.body.at(-1) as SyntaxNode;
  const out = new Map<unknown, unknown>();
  for (const [, inner] of kept(evaluator, comprehension, pairs, scope)) {
    const entry = evaluator.run(transform, inner);
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
      throw new Error('transformMapEntry: the transform must return a map');
    for (const [key, value] of mapEntries(entry)) {
      if (out.has(key)) throw new Error(`insert failed: key ${String(key)} already exists`);
      out.set(key, value);
    }
  }
  return out;
};

interface MacroKind {
  name: string;
  /** Arguments after the two variables (a filter makes two). */
  arities: number[];
  reduce: Reduce;
  resultType(checker: Checker, comprehension: Comprehension, bodyType: CelType): CelType;
}

const boolResult = (checker: Checker) => checker.getType('bool');
const kinds: MacroKind[] = [
  { name: 'all', arities: [1], reduce: quantifier(false), resultType: boolResult },
  { name: 'exists', arities: [1], reduce: quantifier(true), resultType: boolResult },
  { name: 'existsOne', arities: [1], reduce: existsOne, resultType: boolResult },
  {
    name: 'transformList',
    arities: [1, 2],
    reduce: transformList,
    resultType: (checker, _, body) => checker.registry.getListType(body),
  },
  {
    name: 'transformMap',
    arities: [1, 2],
    reduce: transformMap,
    resultType: (checker, comprehension, body) =>
      checker.registry.getMapType(comprehension.firstType ?? checker.getType('dyn'), body),
  },
  {
    name: 'transformMapEntry',
    arities: [1, 2],
    reduce: transformMapEntry,
    resultType: (checker) => checker.getType('map'),
  },
];

function variableTypes(checker: Checker, range: CelType): [CelType, CelType] {
  const dyn = checker.getType('dyn');
  // An empty literal's element type is a placeholder (`list<T>`): its variables are dyn.
  const known = (type: CelType | undefined) => (type === undefined || type.kind === 'param' ? dyn : type);
  if (range.kind === 'list') return [checker.getType('int'), known(range.valueType)];
  if (range.kind === 'map') return [known(range.keyType), known(range.valueType)];
  if (range.kind === 'dyn') return [dyn, dyn];
  throw new Error('a two-variable comprehension ranges over a list or a map');
}

function macro(kind: MacroKind) {
  return ({ args, receiver }: MacroInput) => {
    const comprehension: Comprehension = {
      first: identifier(args[0], kind.name),
      second: identifier(args[1], kind.name),
      range: receiver,
      body: args.slice(2),
    };
    if (comprehension.first === comprehension.second)
      throw new Error(`${kind.name}: the two iteration variables must differ`);
    return {
      async: false,
      typeCheck(checker: Checker, _: unknown, scope: Scope): CelType {
        const [firstType, secondType] = variableTypes(checker, checker.check(comprehension.range, scope));
        Object.assign(comprehension, { firstType, secondType });
        const inner = scope
          .forkWithVariable(comprehension.first, firstType)
          .forkWithVariable(comprehension.second, secondType);
        let bodyType = checker.getType('dyn');
        for (const node of comprehension.body) bodyType = checker.check(node, inner);
        return kind.resultType(checker, comprehension, bodyType);
      },
      evaluate(evaluator: Evaluator, _: unknown, scope: Scope): unknown {
        const pairs = pairsOf(evaluator.run(comprehension.range, scope), kind.name, comprehension.firstType);
        const dyn = { kind: 'dyn' } as CelType;
        const inner = ([first, second]: [unknown, unknown]) =>
          scope
            .forkWithVariable(comprehension.first, comprehension.firstType ?? dyn)
            .setIterValue(first, evaluator)
            .forkWithVariable(comprehension.second, comprehension.secondType ?? dyn)
            .setIterValue(second, evaluator);
        return kind.reduce(evaluator, comprehension, pairs, inner);
      },
    };
  };
}

/**
 * Registers CEL's two-variable comprehensions (cel-spec macros2; cel-go `ext.TwoVarComprehensions`):
 * `all`, `exists`, `existsOne`, `transformList`, `transformMap` and `transformMapEntry`, each as
 * `range.macro(i, v, …)` where `i` is a list's index or a map's key and `v` the value.
 */
export function registerTwoVariableComprehensions(env: Environment): Environment {
  for (const kind of kinds)
    for (const receiver of ['list', 'map'])
      for (const arity of kind.arities) {
        const params = Array.from({ length: arity + 2 }, () => 'ast').join(', ');
        env.registerFunction(`${receiver}.${kind.name}(${params}): dyn`, macro(kind) as never);
      }
  return env;
}
