import { Environment } from '../../lib/cel-engine/index.js';
import type { AbacRule, Identity, Operation } from '../types.js';
import { registerCelExtensions, withBlockReferences, withPlainSyntax } from '../../lib/cel/index.js';
import { registerRe2Matches, withRe2Matches } from './cel-re2-matches.js';

/** What a CEL condition can read: the caller, the stored record, the payload, and now. */
export interface CelInput {
  actor: { id: string; roles: string[]; attributes: Record<string, unknown>; scope: Record<string, unknown> };
  record?: Record<string, unknown>;
  request?: Record<string, unknown>;
  now: Date;
}

/** A compiled ABAC rule of one operation. */
export interface CompiledRule {
  rule: AbacRule;
  /** True when the condition reads `record` (then it runs once the stored record is known). */
  needsRecord: boolean;
  evaluate(input: CelInput): boolean;
}

// Variables per operation: `record` is the stored record (none exists yet on create), `request`
// the payload (reads have none).
const variablesOf: Record<Operation, { record: boolean; request: boolean }> = {
  create: { record: false, request: true },
  read: { record: true, request: false },
  update: { record: true, request: true },
  delete: { record: true, request: false },
};

/**
 * Options of every CEL environment of the service (the conformance test uses them too): list and map
 * literals may mix types, as the CEL spec allows; `.?key` optional chaining reads keys a record or
 * an actor may lack; size limits keep a rule cheap to run.
 */
export const celEnvironmentOptions = {
  homogeneousAggregateLiterals: false,
  enableOptionalTypes: true,
  limits: {
    maxAstNodes: 2000,
    maxDepth: 50,
    maxListElements: 1000,
    maxMapEntries: 1000,
    maxCallArguments: 32,
  },
} as const;

/**
 * A CEL environment with the service's options, CEL extensions and RE2 `matches` (the conformance
 * test runs on it too, with undeclared variables allowed).
 */
export function celEnvironment(
  options: { unlistedVariablesAreDyn?: boolean; uncheckedEvaluation?: boolean } = {},
): Environment {
  return registerRe2Matches(registerCelExtensions(new Environment({ ...celEnvironmentOptions, ...options })));
}

function environment(operation: Operation, withRecord: boolean): Environment {
  const env = celEnvironment()
    .registerVariable('actor', 'map')
    .registerVariable('now', 'google.protobuf.Timestamp');
  if (withRecord && variablesOf[operation].record) env.registerVariable('record', 'map');
  if (variablesOf[operation].request) env.registerVariable('request', 'map');
  return env;
}

const environments = new Map<string, Environment>();
function environmentFor(operation: Operation, withRecord: boolean): Environment {
  const key = `${operation}:${withRecord}`;
  let env = environments.get(key);
  if (!env) environments.set(key, (env = environment(operation, withRecord)));
  return env;
}

/**
 * The text the CEL library runs for a condition: syntax cel-js does not parse, block references and
 * `matches` rewritten.
 */
export function celSource(condition: string): string {
  return withRe2Matches(withBlockReferences(withPlainSyntax(condition)));
}

function message(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'invalid';
}

/**
 * Why a condition cannot be compiled for its operation (a syntax error, an unknown variable such as
 * `record` on create, a result that is not a boolean), or undefined when it compiles.
 */
export function celProblem(operation: Operation, condition: string): string | undefined {
  const checked = environmentFor(operation, true).check(celSource(condition));
  if (!checked.valid) return message(checked.error);
  if (checked.type !== 'bool' && checked.type !== 'dyn')
    return `must be a boolean condition, not ${checked.type}`;
  return undefined;
}

/** Compiles a rule once (per schema version); the rule must have passed `celProblem`. */
export function compileRule(rule: AbacRule): CompiledRule {
  const condition = celSource(rule.condition);
  const program = environmentFor(rule.operation, true).parse(condition);
  const needsRecord =
    variablesOf[rule.operation].record && !environmentFor(rule.operation, false).check(condition).valid;
  return {
    rule,
    needsRecord,
    // A condition that fails to evaluate (a missing key, a type mismatch) denies: default is deny.
    evaluate: (input) => {
      try {
        return program(input) === true;
      } catch {
        return false;
      }
    },
  };
}

/** The `actor` variable of an identity. */
export function celActor(identity: Identity): CelInput['actor'] {
  return {
    id: identity.actor_id,
    roles: identity.roles,
    attributes: identity.attributes,
    scope: identity.scope ?? {},
  };
}
