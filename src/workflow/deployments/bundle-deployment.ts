import { withTransaction, type Pool } from '../../platform/database/pool.js';
import { requireOrgRole } from '../identity/auth/authorization.js';
import type { Identity } from '../identity/auth/identity.js';
import type {
  DecisionService,
  DeployedDecision,
  DmnDocument,
  StoredDmn,
} from '../decisions/decision-service.js';
import type { DefinitionRecord } from '../engine/store/process-definitions.js';
import { findOrCreateProcessGroup } from '../engine/store/process-groups.js';
import type { BpmnDocument, DeploymentService } from './deployment-service.js';

/*
 * A bundle is several BPMN and DMN files deployed together (Camunda's deployment of several
 * resources): every file is checked first, and then all are stored in one transaction, so either
 * every new version exists afterwards or none does.
 */

/** One file of a bundle. */
export interface BundleResource {
  /** The file name, as the caller sent it: problems are reported under it. */
  name: string;
  kind: 'bpmn' | 'dmn';
  xml: string;
}

/** A bundle to deploy: its files, into a process group of the org named `groupName` (created if new). */
export interface BundleInput {
  orgId: string;
  groupName: string;
  resources: readonly BundleResource[];
}

/** A problem of one file of a bundle: the element it is about (null: the whole file). */
export interface BundleProblem {
  elementId: string | null;
  message: string;
}

/** What a bundle deployment did, per file, in the order sent. */
export interface BundleResult {
  resources: BundleResourceResult[];
}

/** One file's outcome: every process or decision it holds, and which of them are new versions. */
export type BundleResourceResult =
  | { name: string; kind: 'bpmn'; definitions: DefinitionRecord[]; newIds: ReadonlySet<string> }
  | { name: string; kind: 'dmn'; decisions: DeployedDecision[]; newKeys: ReadonlySet<string> };

/** Thrown when a file of a bundle cannot be deployed: every problem of every file, by file name. */
export class BundleProblems extends Error {
  constructor(readonly problems: ReadonlyMap<string, BundleProblem[]>) {
    super('The deployment has problems');
  }
}

/** Deploys bundles of BPMN and DMN files atomically (Developer of the org). */
export class BundleDeployments {
  constructor(
    private readonly pool: Pool,
    private readonly processes: DeploymentService,
    private readonly decisions: DecisionService,
  ) {}

  /**
   * Checks every file (BundleProblems with all problems when one has any, nothing stored), then stores
   * all of them in one transaction. A process or decision identical to the latest version of its key
   * stays that version. Two files that define the same process or decision key are a problem.
   */
  async deploy(identity: Identity, input: BundleInput): Promise<BundleResult> {
    requireOrgRole(identity, input.orgId, ['Developer']);
    const problems = new Map<string, BundleProblem[]>();
    const checked: (
      | { name: string; kind: 'bpmn'; document: BpmnDocument }
      | { name: string; kind: 'dmn'; document: DmnDocument }
    )[] = [];
    const processKeys = new Map<string, string>();
    const decisionKeys = new Map<string, string>();
    const claim = (keys: Map<string, string>, key: string, resource: string, what: string) => {
      const other = keys.get(key);
      if (other !== undefined && other !== resource)
        addProblem(problems, resource, {
          elementId: key,
          message: `the ${what} '${key}' is also defined in ${other}`,
        });
      keys.set(key, resource);
    };
    for (const resource of input.resources) {
      if (resource.kind === 'bpmn') {
        const result = await this.processes.check(resource.xml);
        if (!result.ok) {
          for (const problem of result.problems) addProblem(problems, resource.name, problem);
          continue;
        }
        for (const model of result.document.processes)
          claim(processKeys, model.processKey, resource.name, 'process');
        checked.push({ name: resource.name, kind: 'bpmn', document: result.document });
      } else {
        const result = this.decisions.check(resource.xml);
        if (!result.ok) {
          for (const problem of result.problems) addProblem(problems, resource.name, problem);
          continue;
        }
        for (const decision of result.document.compiled.decisions)
          claim(decisionKeys, decision.id, resource.name, 'decision');
        checked.push({ name: resource.name, kind: 'dmn', document: result.document });
      }
    }
    if (problems.size > 0) throw new BundleProblems(problems);

    const storedDecisions: StoredDmn[] = [];
    const results = await withTransaction(this.pool, async (client) => {
      const group = await findOrCreateProcessGroup(client, input.orgId, input.groupName);
      const out: BundleResourceResult[] = [];
      for (const entry of checked) {
        const name = entry.name;
        if (entry.kind === 'bpmn') {
          const result = await this.processes.store(
            client,
            { org_id: input.orgId, process_group_id: group.id },
            entry.document,
          );
          out.push({
            name,
            kind: 'bpmn',
            definitions: result.definitions,
            newIds: new Set(result.newDefinitionIds),
          });
        } else {
          const stored = await this.decisions.store(client, input.orgId, identity.userId, entry.document);
          storedDecisions.push(stored);
          out.push({
            name,
            kind: 'dmn',
            decisions: stored.result.decisions,
            newKeys: new Set(stored.newKeys),
          });
        }
      }
      return out;
    });
    for (const stored of storedDecisions) await this.decisions.stored(stored);
    return { resources: results };
  }
}

function addProblem(problems: Map<string, BundleProblem[]>, resource: string, problem: BundleProblem): void {
  const list = problems.get(resource) ?? [];
  list.push({ elementId: problem.elementId, message: problem.message });
  problems.set(resource, list);
}
