import {
  pgErrorCode,
  PgErrorCode,
  withTransaction,
  type Pool,
  type PoolClient,
} from '../../platform/database/pool.js';
import { requireOrgRole } from '../identity/auth/authorization.js';
import type { Identity } from '../identity/auth/identity.js';
import { WorkflowErrors } from '../errors.js';
import { orgExists } from '../identity/orgs/org-repository.js';
import { CompiledCache, type CompiledCacheLimits } from './compiled-cache.js';
import { DecisionEvaluationFailedError, evaluationFailed, UnknownDecisionError } from './decision-errors.js';
import { decisionFingerprinter } from './decision-fingerprint.js';
import {
  compileDmn,
  defaultDmnLimits,
  DmnEvaluationError,
  DmnValidationError,
  evaluateDecision,
  type CompiledDmn,
  type DmnLimits,
  type DmnProblem,
  type MatchedRule,
} from '../../lib/dmn/index.js';
import * as decisions from './decision-repository.js';
import { depthExceeds } from './variable-depth.js';
import { unstorableDmnReason } from './dmn-text-guard.js';
import type { Queryable } from '../../platform/database/queryable.js';

/**
 * Longest decision key accepted, URL-encoded: the key is a path segment of the evaluate endpoint, and
 * Fastify refuses longer path parameters. Longest name: the bound of the table's check.
 */
const MAX_KEY_LENGTH = 100;
const MAX_NAME_LENGTH = 500;
/** Deepest nesting of evaluation variables; deeper input could exhaust the stack while converting it. */
export const MAX_VARIABLE_DEPTH = 64;

/** What a deploy did: each decision of the file in file order, and whether any version is new. */
export interface DeployResult {
  created: boolean;
  decisions: DeployedDecision[];
}

/** A DMN file compiled and checked, ready to be stored. */
export interface DmnDocument {
  xml: string;
  compiled: CompiledDmn;
}

/** The outcome of checking a DMN file: ready to store, or every problem found. */
export type CheckedDmn = { ok: true; document: DmnDocument } | { ok: false; problems: DmnProblem[] };

/** What {@link DecisionService.store} wrote: the new deployment (null when nothing was new) and its keys. */
export interface StoredDmn {
  deploymentId: string | null;
  /** The decision keys that got a new version. */
  newKeys: string[];
  document: DmnDocument;
  result: DeployResult;
}

/** One decision of a deployed file: the version it is now (new, or the identical latest one). */
export interface DeployedDecision {
  id: string;
  decision_key: string;
  version: number;
  name: string;
  /** Its `camunda:historyTimeToLive` in days: kept and shown, nothing is purged by it. */
  history_time_to_live: number | null;
}

/** A rule that matched during an evaluation, as the API shows it (`rule_index` is 0-based). */
export interface MatchedRuleBody {
  decision_id: string;
  decision_name: string;
  rule_id: string | null;
  rule_index: number;
}

/** The answer of POST /api/v1/decisions/{decision_key}/evaluate. */
export interface EvaluationBody {
  decision_key: string;
  version: number;
  result: unknown;
  matched_rules: MatchedRuleBody[];
}

/** What evaluateForProcess returns to the BPMN engine. `result` and `resultList` are plain JSON. */
export interface DecisionEvaluation {
  decisionKey: string;
  version: number;
  result: unknown;
  /** Camunda's decision result: one entry (output name → value) per rule that decided the result. */
  resultList: Record<string, unknown>[];
  matchedRules: MatchedRule[];
}

/** Options of DecisionService. */
export interface DecisionServiceOptions {
  /** Bounds of the in-memory cache of compiled DMN files (default 500 files, 64 Mi characters of XML). */
  cache?: Partial<CompiledCacheLimits>;
  /** What one deployed file may contain (defaults: defaultDmnLimits). */
  limits?: Partial<DmnLimits>;
}

/**
 * Decisions as versioned resources of an organisation: deploy DMN files, list and rename decision
 * keys, evaluate a version. Compiled files are cached in memory by deployment (the versions of one
 * file share it), so an evaluation costs one indexed query and no parsing.
 */
export class DecisionService {
  private readonly compiled: CompiledCache<CompiledDmn>;
  private readonly limits: DmnLimits;

  constructor(
    private readonly pool: Pool,
    options: DecisionServiceOptions = {},
  ) {
    this.compiled = new CompiledCache({
      maxEntries: options.cache?.maxEntries ?? 500,
      maxWeight: options.cache?.maxWeight ?? 64 * 2 ** 20,
    });
    this.limits = { ...defaultDmnLimits, ...options.limits };
  }

  /**
   * Deploys a DMN file (Developer): every decision becomes a new version of its key, unless what it
   * evaluates is identical to the key's latest version, which is then returned as it is. A file with
   * problems is refused with all of them listed and nothing stored. `created` is false when every
   * decision was identical (then nothing is stored either).
   */
  async deploy(identity: Identity, orgId: string, xml: string): Promise<DeployResult> {
    requireOrgRole(identity, orgId, ['Developer']);
    const checked = this.check(xml);
    if (!checked.ok)
      throw WorkflowErrors.validation(`The DMN has ${checked.problems.length} problem(s)`, {
        errors: checked.problems.map((problem) => ({
          element_id: problem.elementId,
          message: problem.message,
        })),
      });
    let stored: StoredDmn;
    try {
      stored = await withTransaction(this.pool, (client) =>
        this.store(client, orgId, identity.userId, checked.document),
      );
    } catch (error) {
      if (pgErrorCode(error) === PgErrorCode.foreignKeyViolation) {
        throw WorkflowErrors.notFound('No such organisation');
      }
      throw error;
    }
    await this.stored(stored);
    return stored.result;
  }

  /**
   * Compiles a DMN file without storing anything: the file ready to store, or every problem found.
   * The caller checks the deployer's role.
   */
  check(xml: string): CheckedDmn {
    try {
      return { ok: true, document: { xml, compiled: compileOrRefuse(xml, this.limits) } };
    } catch (error) {
      if (!(error instanceof DmnProblems)) throw error;
      return { ok: false, problems: error.problems };
    }
  }

  /**
   * Stores a checked file in the caller's transaction: every decision becomes a new version of its
   * key unless it is identical to the latest. Call {@link stored} once the transaction has committed.
   */
  async store(client: PoolClient, orgId: string, userId: string, document: DmnDocument): Promise<StoredDmn> {
    const { xml, compiled } = document;
    const fingerprint = decisionFingerprinter(compiled.model);
    const timesToLive = new Map(compiled.model.decisions.map((d) => [d.id, d.historyTimeToLive ?? null]));
    const wanted = compiled.decisions.map((decision) => ({
      key: decision.id,
      name: decision.name.trim() === '' ? decision.id : decision.name,
      hash: fingerprint(decision.id),
      historyTimeToLive: timesToLive.get(decision.id) ?? null,
    }));
    // Keys are locked in one order so that two files sharing keys cannot deadlock.
    const byKey = [...wanted].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

    let deploymentId: string | null = null;
    const deployed = new Map<string, DeployedDecision>();
    const newKeys: string[] = [];
    for (const decision of byKey) {
      const key = await decisions.lockDecisionKey(client, orgId, decision.key, decision.name);
      const latest =
        key.latest_version === 0
          ? null
          : await decisions.findVersion(client, orgId, decision.key, key.latest_version);
      // A new history time to live makes a new version, as any change of the file does in Camunda.
      if (
        latest !== null &&
        latest.content_hash === decision.hash &&
        latest.history_time_to_live === decision.historyTimeToLive
      ) {
        deployed.set(decision.key, {
          id: latest.id,
          decision_key: decision.key,
          version: latest.version,
          name: key.name,
          history_time_to_live: latest.history_time_to_live,
        });
        continue;
      }
      deploymentId ??= await decisions.insertDeployment(client, orgId, xml, userId);
      const created = await decisions.insertVersion(client, {
        orgId,
        decisionKey: decision.key,
        version: key.latest_version + 1,
        name: decision.name,
        deploymentId,
        contentHash: decision.hash,
        historyTimeToLive: decision.historyTimeToLive,
      });
      newKeys.push(created.decision_key);
      deployed.set(decision.key, {
        id: created.id,
        decision_key: created.decision_key,
        version: created.version,
        name: created.name,
        history_time_to_live: created.history_time_to_live,
      });
    }
    return {
      deploymentId,
      newKeys,
      document,
      result: {
        created: deploymentId !== null,
        decisions: wanted.map(({ key }) => {
          const entry = deployed.get(key);
          if (entry === undefined) throw new Error(`decision '${key}' was not deployed`);
          return entry;
        }),
      },
    };
  }

  /** After the commit of {@link store}: the first evaluation of the new versions finds the file compiled. */
  async stored(stored: StoredDmn): Promise<void> {
    if (stored.deploymentId === null) return;
    const { compiled, xml } = stored.document;
    await this.compiled.get(stored.deploymentId, () =>
      Promise.resolve({ value: compiled, weight: xml.length }),
    );
  }

  /** The latest version of each key, or every version (any role in the organisation). */
  async list(
    identity: Identity,
    orgId: string,
    allVersions: boolean,
  ): Promise<decisions.DecisionVersionRecord[]> {
    requireOrgRole(identity, orgId, ['Developer', 'Operator', 'Reader', 'Worker']);
    if (!(await orgExists(this.pool, orgId))) throw WorkflowErrors.notFound('No such organisation');
    return decisions.listDecisions(this.pool, orgId, allVersions);
  }

  /**
   * The latest or a pinned version of a key with the DMN file it was deployed in (any role in the
   * organisation), so that a client can draw it; 404 for an unknown key or version.
   */
  async xml(
    identity: Identity,
    orgId: string,
    decisionKey: string,
    version: number | null,
  ): Promise<decisions.DecisionVersionXml> {
    requireOrgRole(identity, orgId, ['Developer', 'Operator', 'Reader', 'Worker']);
    const found = await decisions.findVersionXml(this.pool, orgId, decisionKey, version);
    if (found !== null) return found;
    if (!(await orgExists(this.pool, orgId))) throw WorkflowErrors.notFound('No such organisation');
    throw WorkflowErrors.notFound(
      version === null
        ? `No decision with key '${decisionKey}'`
        : `No version ${version} of decision '${decisionKey}'`,
    );
  }

  /** Renames a decision key, which renames every version of it (Developer). */
  async rename(identity: Identity, orgId: string, decisionKey: string, name: string): Promise<void> {
    requireOrgRole(identity, orgId, ['Developer']);
    if (!(await decisions.renameDecisionKey(this.pool, orgId, decisionKey, name))) {
      throw WorkflowErrors.notFound(`No decision with key '${decisionKey}'`);
    }
  }

  /**
   * Evaluates the latest version of a key, or the pinned one (Developer or Operator). A decision
   * that cannot be evaluated with these variables is 422 `U422` naming the decision and rule.
   */
  async evaluate(
    identity: Identity,
    orgId: string,
    decisionKey: string,
    version: number | null,
    variables: Record<string, unknown>,
  ): Promise<EvaluationBody> {
    const evaluation = await this.evaluateAsCaller(identity, orgId, decisionKey, version, variables);
    return {
      decision_key: evaluation.decisionKey,
      version: evaluation.version,
      result: evaluation.result,
      matched_rules: evaluation.matchedRules.map((rule) => ({
        decision_id: rule.decisionId,
        decision_name: rule.decisionName,
        rule_id: rule.ruleId,
        rule_index: rule.ruleIndex,
      })),
    };
  }

  /**
   * Evaluates for a caller (Developer or Operator), as `evaluate` does, and answers the whole
   * evaluation (the result list too): what the Camunda API needs. 404 for an unknown key or
   * version, 422 `U422` for a decision that cannot be evaluated with these variables.
   */
  async evaluateAsCaller(
    identity: Identity,
    orgId: string,
    decisionKey: string,
    version: number | null,
    variables: Record<string, unknown>,
  ): Promise<DecisionEvaluation> {
    requireOrgRole(identity, orgId, ['Developer', 'Operator']);
    if (depthExceeds(variables, MAX_VARIABLE_DEPTH)) {
      throw WorkflowErrors.validation(`variables are nested deeper than ${MAX_VARIABLE_DEPTH} levels`);
    }
    try {
      return await this.evaluateForProcess(orgId, decisionKey, version, variables);
    } catch (error) {
      if (error instanceof UnknownDecisionError) throw WorkflowErrors.notFound(error.message);
      if (error instanceof DecisionEvaluationFailedError) throw evaluationFailed(error);
      throw error;
    }
  }

  /**
   * Evaluates a decision for the BPMN engine (business rule tasks): the latest version of the key in
   * the organisation, or `version`. No role check: the engine acts for a deployed process. Throws
   * UnknownDecisionError or DecisionEvaluationFailedError. Pass the engine's transaction connection
   * as `db` so that the lookup does not wait for a second connection from the pool.
   */
  async evaluateForProcess(
    orgId: string,
    decisionKey: string,
    version: number | null,
    variables: Record<string, unknown>,
    options: { db?: Queryable } = {},
  ): Promise<DecisionEvaluation> {
    const db = options.db ?? this.pool;
    const resolved = await decisions.resolveVersion(db, orgId, decisionKey, version);
    if (resolved === null) throw new UnknownDecisionError(decisionKey, version);
    if (depthExceeds(variables, MAX_VARIABLE_DEPTH)) {
      throw new DecisionEvaluationFailedError(decisionKey, resolved.version, {
        message: `variables are nested deeper than ${MAX_VARIABLE_DEPTH} levels`,
      });
    }
    const compiled = await this.compiledFile(db, decisionKey, resolved);
    try {
      const { result, resultList, matchedRules } = evaluateDecision(compiled, decisionKey, variables, {
        strict: true,
      });
      return {
        decisionKey,
        version: resolved.version,
        result: toJson(result),
        resultList: resultList.map(entryToJson),
        matchedRules,
      };
    } catch (error) {
      if (error instanceof DmnEvaluationError) {
        throw new DecisionEvaluationFailedError(decisionKey, resolved.version, error);
      }
      throw error;
    }
  }

  private compiledFile(
    db: Queryable,
    decisionKey: string,
    resolved: decisions.ResolvedVersion,
  ): Promise<CompiledDmn> {
    return this.compiled.get(resolved.deployment_id, async () => {
      const xml = await decisions.deploymentXml(db, resolved.deployment_id);
      if (xml === null) throw new UnknownDecisionError(decisionKey, resolved.version);
      try {
        return { value: compileDmn(xml), weight: xml.length };
      } catch (error) {
        // Only possible if a newer engine refuses a file an older one accepted.
        if (error instanceof DmnValidationError) {
          throw new DecisionEvaluationFailedError(decisionKey, resolved.version, {
            message: `the stored DMN no longer compiles: ${error.message}`,
          });
        }
        throw error;
      }
    });
  }
}

/**
 * Compiles a file to deploy, or throws 400 `U400` listing every problem in `details.errors` (a file
 * over the limits among them, naming the limit).
 */
function compileOrRefuse(xml: string, limits: DmnLimits): CompiledDmn {
  let problems: DmnProblem[];
  try {
    const unstorable = unstorableDmnReason(xml);
    if (unstorable !== null) throw new DmnValidationError([{ elementId: null, message: unstorable }]);
    const compiled = compileDmn(xml, limits);
    problems = [];
    if (compiled.decisions.length === 0) {
      problems.push({ elementId: null, message: 'the file has no decisions' });
    }
    const seen = new Set<string>();
    for (const { id, name } of compiled.decisions) {
      if (seen.has(id)) problems.push({ elementId: id, message: `two decisions have the id '${id}'` });
      seen.add(id);
      if (encodeURIComponent(id).length > MAX_KEY_LENGTH) {
        problems.push({
          elementId: id.slice(0, 40),
          message: `the decision id is longer than ${MAX_KEY_LENGTH} characters (URL-encoded); it must fit in a URL path segment`,
        });
      }
      if (name.length > MAX_NAME_LENGTH) {
        problems.push({
          elementId: id,
          message: `the decision name is longer than ${MAX_NAME_LENGTH} characters`,
        });
      }
    }
    if (problems.length === 0) return compiled;
  } catch (error) {
    if (!(error instanceof DmnValidationError)) throw error;
    problems = error.problems;
  }
  throw new DmnProblems(problems);
}

// What compileOrRefuse throws: the file's problems, made into an answer by the caller.
class DmnProblems extends Error {
  constructor(readonly problems: DmnProblem[]) {
    super('the DMN has problems');
  }
}

function entryToJson(entry: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entry).map(([name, value]) => [name, toJson(value)]));
}

// FEEL values (dates, durations, ranges) become their JSON forms, so the API and the engine's
// variables get plain JSON.
function toJson(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  return JSON.parse(JSON.stringify(value)) as unknown;
}
