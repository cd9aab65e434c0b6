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
import { formSetProblems, parseFormFile, type FormDocument } from '../forms/form-document.js';
import type { FormService, StoredForm } from '../forms/form-service.js';
import type { BpmnDocument, DeploymentService } from './deployment-service.js';

/*
 * A bundle is several BPMN, DMN and form files deployed together (Camunda's deployment of several
 * resources): every file is checked first, and then all are stored in one transaction, so either
 * every new version exists afterwards or none does.
 */

/** One file of a bundle: BPMN or DMN XML, or a Camunda Form's JSON. */
export type BundleResource =
  | {
      /** The file name, as the caller sent it: problems are reported under it. */
      name: string;
      kind: 'bpmn' | 'dmn';
      xml: string;
    }
  | { name: string; kind: 'form'; text: string };

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

/** What a bundle deployment did, per file: the BPMN and DMN files in the order sent, then the forms. */
export interface BundleResult {
  resources: BundleResourceResult[];
}

/** One file's outcome: every process or decision it holds, and which of them are new versions. */
export type BundleResourceResult =
  | { name: string; kind: 'bpmn'; definitions: DefinitionRecord[]; newIds: ReadonlySet<string> }
  | { name: string; kind: 'dmn'; decisions: DeployedDecision[]; newKeys: ReadonlySet<string> }
  | { name: string; kind: 'form'; form: StoredForm };

/** Thrown when a file of a bundle cannot be deployed: every problem of every file, by file name. */
export class BundleProblems extends Error {
  constructor(readonly problems: ReadonlyMap<string, BundleProblem[]>) {
    super('The deployment has problems');
  }
}

/** Deploys bundles of BPMN, DMN and form files atomically (Developer of the org). */
export class BundleDeployments {
  constructor(
    private readonly pool: Pool,
    private readonly processes: DeploymentService,
    private readonly decisions: DecisionService,
    private readonly forms: FormService,
  ) {}

  /**
   * Checks every file (BundleProblems with all problems when one has any, nothing stored), then stores
   * all of them in one transaction. A process or decision identical to the latest version of its key
   * stays that version. Two files that define the same process, decision or form key are a
   * problem. Forms are stored after the processes: when the bundle created a process version, each
   * form gets a new version in this deployment too (FormService.store).
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
    const forms: FormDocument[] = [];
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
      if (resource.kind === 'form') {
        const parsed = parseFormFile(resource.name, resource.text);
        if (parsed.ok) forms.push(parsed.form);
        else addProblem(problems, resource.name, { elementId: null, message: parsed.message });
      } else if (resource.kind === 'bpmn') {
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
    for (const problem of formSetProblems(forms))
      addProblem(problems, problem.name, { elementId: null, message: problem.message });
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
      const redeploy = out.some((result) => result.kind === 'bpmn' && result.newIds.size > 0);
      const stored = await this.forms.store(client, input.orgId, forms, { redeploy });
      forms.forEach((form, index) => {
        const result = stored[index];
        if (result !== undefined) out.push({ name: form.resourceName, kind: 'form', form: result });
      });
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
