import { FeelDate, FeelDateTime, FeelDuration, FeelTime, isFunction } from 'feelin';
import { compileUnaryTests, type CompiledUnaryTests } from './unary-tests.js';
import type { DmnItemDefinition } from './types.js';

/** The outcome of checking a value against a typeRef: the value after singleton-list conversion, or not ok. */
export type Conformance = { ok: true; value: unknown } | { ok: false };

/** Checks values against typeRefs (FEEL built-in types and the model's item definitions). */
export interface TypeChecker {
  conform(value: unknown, typeRef: string | null): Conformance;
  /**
   * The model's item definitions as values FEEL's `instance of` can test against (feelin tests a type
   * name it does not know with JavaScript's `instanceof` on the value of that name in scope), by name.
   */
  readonly instanceTypes: Readonly<Record<string, unknown>>;
}

interface ItemType {
  function: boolean;
  base: string | null;
  collection: boolean;
  components: Map<string, ItemType> | null;
  allowed: CompiledUnaryTests | null;
}

const BUILTIN: Record<string, (value: unknown) => boolean> = {
  any: () => true,
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number',
  boolean: (v) => typeof v === 'boolean',
  date: (v) => v instanceof FeelDate,
  time: (v) => v instanceof FeelTime,
  'date and time': (v) => v instanceof FeelDateTime,
  datetime: (v) => v instanceof FeelDateTime,
  'days and time duration': (v) => v instanceof FeelDuration && !v.yearsMonths,
  daytimeduration: (v) => v instanceof FeelDuration && !v.yearsMonths,
  'years and months duration': (v) => v instanceof FeelDuration && v.yearsMonths,
  yearmonthduration: (v) => v instanceof FeelDuration && v.yearsMonths,
  context: (v) => isPlainObject(v),
  list: (v) => Array.isArray(v),
  function: (v) => isFunction(v),
};

/** Builds the type checker of a model. Unknown type names (e.g. imported ones) accept any value. */
export function createTypeChecker(itemDefinitions: DmnItemDefinition[]): TypeChecker {
  const named = new Map<string, ItemType>();
  const build = (def: DmnItemDefinition): ItemType => ({
    function: def.isFunction,
    base: def.typeRef === null ? null : normalizeTypeRef(def.typeRef),
    collection: def.isCollection,
    components:
      def.components.length > 0 ? new Map(def.components.map((c) => [c.name, build(c)] as const)) : null,
    allowed: def.allowedValues === null ? null : compileUnaryTests(def.allowedValues),
  });
  for (const def of itemDefinitions) named.set(def.name, build(def));

  const checkItem = (value: unknown, item: ItemType, depth: number): Conformance => {
    if (value === null || value === undefined) return { ok: true, value: null };
    if (item.collection) {
      const list = Array.isArray(value) ? value : [value];
      const element: ItemType = { ...item, collection: false };
      const out: unknown[] = [];
      for (const v of list) {
        const r = checkItem(v, element, depth + 1);
        if (!r.ok) return r;
        out.push(r.value);
      }
      return { ok: true, value: out };
    }
    if (Array.isArray(value) && value.length === 1) return checkItem(value[0], item, depth + 1);
    if (item.components !== null) {
      if (!isPlainObject(value)) return { ok: false };
      for (const [name, type] of item.components) {
        if (!checkItem(value[name] ?? null, type, depth + 1).ok) return { ok: false };
      }
      return { ok: true, value };
    }
    if (item.base !== null) {
      const r = checkRef(value, item.base, depth + 1);
      if (!r.ok) return r;
      value = r.value;
    }
    if (item.allowed !== null && !item.allowed.test(value, {})) return { ok: false };
    return { ok: true, value };
  };

  const checkRef = (value: unknown, ref: string, depth: number): Conformance => {
    if (value === null || value === undefined) return { ok: true, value: null };
    if (depth > 32) return { ok: true, value };
    const item = named.get(ref);
    if (item !== undefined) return checkItem(value, item, depth);
    const builtin = BUILTIN[ref.toLowerCase()];
    if (builtin === undefined) return { ok: true, value };
    if (builtin(value)) return { ok: true, value };
    if (Array.isArray(value) && value.length === 1 && builtin(value[0])) return { ok: true, value: value[0] };
    return { ok: false };
  };

  // `instance of` (DMN 1.5 10.3.2.9): the value's own type must be the item definition's type or a
  // subtype of it, structurally; allowed values are a constraint, not part of the type, and no
  // singleton list conversion applies. Null is an instance of no item definition, but a context entry
  // that is null conforms to its component's type.
  const isInstance = (value: unknown, item: ItemType, depth: number): boolean => {
    if (value === null || value === undefined) return false;
    if (depth > 32) return true;
    if (item.function) return isFunction(value);
    if (item.collection) {
      const element: ItemType = { ...item, collection: false };
      return Array.isArray(value) && value.every((v) => v === null || isInstance(v, element, depth + 1));
    }
    if (item.components !== null) {
      if (!isPlainObject(value)) return false;
      for (const [name, type] of item.components) {
        if (!Object.hasOwn(value, name)) return false;
        const entry = value[name];
        if (entry !== null && entry !== undefined && !isInstance(entry, type, depth + 1)) return false;
      }
      return true;
    }
    if (item.base === null) return true;
    const definition = named.get(item.base);
    if (definition !== undefined) return isInstance(value, definition, depth + 1);
    const builtin = BUILTIN[item.base.toLowerCase()];
    return builtin === undefined || builtin(value);
  };
  const instanceTypes: Record<string, unknown> = {};
  for (const [name, item] of named) {
    const type = function itemDefinition(): void {};
    Object.defineProperty(type, Symbol.hasInstance, { value: (v: unknown) => isInstance(v, item, 0) });
    instanceTypes[name] = type;
  }

  return {
    conform(value, typeRef) {
      if (typeRef === null) return { ok: true, value: value ?? null };
      return checkRef(value, normalizeTypeRef(typeRef), 0);
    },
    instanceTypes,
  };
}

/** A typeRef without a `feel:` style prefix. */
function normalizeTypeRef(typeRef: string): string {
  return typeRef.trim().replace(/^feel:/, '');
}

/** Whether a value is a FEEL context (a plain object). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
