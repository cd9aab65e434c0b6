import type { Clock } from '../../platform/clock.js';
import { withTransaction, type Pool, type PoolClient } from '../../platform/database/pool.js';
import { requireOrgRole } from '../identity/auth/authorization.js';
import type { Identity } from '../identity/auth/identity.js';
import {
  compileBpmn,
  bpmnContentHash,
  type ExtensionSpec,
  type ModelProblem,
  type ProcessModel,
} from '../engine/model/index.js';
import { WorkflowErrors } from '../errors.js';
import * as definitions from '../engine/store/process-definitions.js';
import { processGroupInOrg } from '../engine/store/process-groups.js';
import * as statistics from '../engine/store/definition-statistics.js';
import { lockProcessKey, setLastVersion } from '../engine/store/process-keys.js';
import type { ModelCache } from './model-cache.js';
import { checkFormSchema, formSetProblems, type FormDocument } from '../forms/form-document.js';
import type { FormService, StoredForm } from '../forms/form-service.js';
import {
  armTimerStarts,
  cancelTimerStarts,
  lockTimerStartsOfKey,
  replaceTimerStartsOfKey,
} from '../engine/store/timer-jobs.js';
import { timerStartsOf, type TimerStart } from './timer-starts.js';

/** Input of a deployment. */
export interface DeployInput {
  org_id: string;
  process_group_id: string;
  xml: string;
  draft?: boolean | undefined;
  /** Camunda Forms deployed with the document: each a resource name and its form-js schema. */
  forms?: readonly { name: string; schema: unknown }[] | undefined;
}

/** What a deployment produced: one definition per executable process, and whether any is new. */
export interface DeployResult {
  created: boolean;
  definitions: definitions.DefinitionRecord[];
  /** The definitions this deployment created (the others were the unchanged latest versions). */
  newDefinitionIds: string[];
  /** The forms deployed with it: new versions, or the unchanged latest ones. */
  forms: StoredForm[];
}

/** A BPMN document compiled and checked, ready to be stored. */
export interface BpmnDocument {
  xml: string;
  contentHash: string;
  processes: ProcessModel[];
  timerStarts: ReadonlyMap<string, TimerStart[]>;
}

/** The outcome of checking a BPMN document: ready to store, or every problem found. */
export type CheckedBpmn = { ok: true; document: BpmnDocument } | { ok: false; problems: ModelProblem[] };

/** Deploys BPMN as versioned definitions; lists, shows, disables and renames them. */
export class DeploymentService {
  constructor(
    private readonly pool: Pool,
    private readonly models: ModelCache,
    private readonly extensions: Record<string, ExtensionSpec>,
    private readonly clock: Clock,
    private readonly forms: FormService,
  ) {}

  /**
   * Validates the XML and the forms (400 with every problem), then stores each executable process
   * as the next version of its key — or returns the latest version unchanged when the XML is
   * identical to it — and the forms as versions of their keys, in one transaction.
   */
  async deploy(identity: Identity, input: DeployInput): Promise<DeployResult> {
    requireOrgRole(identity, input.org_id, ['Developer']);
    const checked = await this.check(input.xml);
    const forms = checkForms(input);
    if (!checked.ok || !forms.ok) {
      throw WorkflowErrors.validation('The BPMN cannot be deployed', {
        errors: [
          ...(checked.ok ? [] : checked.problems).map((problem) => ({
            element_id: problem.elementId,
            message: problem.message,
          })),
          ...(forms.ok ? [] : forms.problems),
        ],
      });
    }
    return withTransaction(this.pool, async (client) => {
      if (!(await processGroupInOrg(client, input.org_id, input.process_group_id))) {
        throw WorkflowErrors.notFound('No such process group in this organisation');
      }
      const result = await this.store(client, input, checked.document);
      const stored = await this.forms.store(client, input.org_id, forms.forms, {
        redeploy: result.newDefinitionIds.length > 0,
      });
      return { ...result, created: result.created || stored.some((form) => form.created), forms: stored };
    });
  }

  /**
   * Compiles a BPMN document and its timer starts without storing anything: the document ready to
   * store, or every problem found. The caller checks the deployer's role.
   */
  async check(xml: string): Promise<CheckedBpmn> {
    const compiled = await compileBpmn(xml, { extensions: this.extensions });
    const timerStarts = new Map<string, TimerStart[]>();
    const problems = compiled.ok ? [] : compiled.problems;
    for (const model of compiled.ok ? compiled.processes : []) {
      const starts = timerStartsOf(model, this.clock.now());
      if (starts.ok) timerStarts.set(model.processKey, starts.starts);
      else problems.push(...starts.problems);
    }
    if (!compiled.ok || problems.length > 0) return { ok: false, problems };
    return {
      ok: true,
      document: { xml, contentHash: bpmnContentHash(xml), processes: compiled.processes, timerStarts },
    };
  }

  /**
   * Stores a checked document in the caller's transaction, in a process group of the org the caller
   * has checked: each process becomes the next version of its key, or stays the latest version when
   * that has the same XML (then it is not in `newDefinitionIds`).
   */
  async store(
    client: PoolClient,
    input: { org_id: string; process_group_id: string; draft?: boolean | undefined },
    document: BpmnDocument,
  ): Promise<DeployResult> {
    const deployed: definitions.DefinitionRecord[] = [];
    const newDefinitionIds: string[] = [];
    // Keys are locked in a fixed order so two deployments of the same collaboration cannot deadlock.
    const processes = [...document.processes].sort((a, b) => a.processKey.localeCompare(b.processKey));
    for (const model of processes) {
      if (!input.draft)
        await lockTimerStartsOfKey(client, { orgId: input.org_id, processKey: model.processKey });
      const key = await lockProcessKey(client, input.org_id, model.processKey);
      if (!input.draft && key.latest?.contentHash === document.contentHash) {
        const existing = await definitions.findDefinition(client, key.latest.id);
        if (existing) {
          const { xml: _xml, ...record } = existing;
          deployed.push(record);
          continue;
        }
      }
      if (!input.draft) await setLastVersion(client, input.org_id, model.processKey, key.lastVersion + 1);
      const record = await definitions.insertDefinition(client, {
        orgId: input.org_id,
        processGroupId: input.process_group_id,
        processKey: model.processKey,
        version: input.draft ? null : key.lastVersion + 1,
        name: model.name,
        xml: document.xml,
        contentHash: document.contentHash,
        model,
      });
      this.models.remember(record.id, model);
      if (!input.draft) {
        // The new version's timer starts replace the previous versions', in the same transaction.
        await replaceTimerStartsOfKey(
          client,
          { orgId: input.org_id, processKey: model.processKey },
          record.id,
        );
        const starts = document.timerStarts.get(model.processKey) ?? [];
        await armTimerStarts(
          client,
          { orgId: input.org_id, definitionId: record.id },
          starts,
          this.clock.now(),
        );
      }
      deployed.push(record);
      newDefinitionIds.push(record.id);
    }
    return { created: newDefinitionIds.length > 0, definitions: deployed, newDefinitionIds, forms: [] };
  }

  /** Definitions of an org, newest first (Reader). */
  async list(
    identity: Identity,
    orgId: string,
    processKey: string | undefined,
  ): Promise<definitions.DefinitionRecord[]> {
    requireOrgRole(identity, orgId, ['Developer', 'Operator', 'Reader']);
    return definitions.listDefinitions(this.pool, orgId, processKey);
  }

  /** One definition with its XML (Reader of its org). */
  async get(identity: Identity, id: string): Promise<definitions.DefinitionRecord & { xml: string }> {
    const definition = await this.find(identity, id, ['Developer', 'Operator', 'Reader']);
    return definition;
  }

  /**
   * Disables or enables a version (Developer); drafts cannot be disabled (409). Disabling cancels the
   * version's timer start jobs; enabling a disabled version re-arms that version's timer starts,
   * whether or not it is the latest of its key (the spec's "re-armed on enable"), in the same
   * transaction as the flag. Enabling a version that is already enabled arms nothing: the timer
   * starts a newer deployment replaced stay replaced until the version is disabled and enabled.
   */
  async setDisabled(
    identity: Identity,
    id: string,
    disabled: boolean,
  ): Promise<definitions.DefinitionRecord> {
    const definition = await this.find(identity, id, ['Developer']);
    if (definition.draft)
      throw WorkflowErrors.conflict('A draft cannot be disabled or enabled; deploy it as a version first');
    return withTransaction(this.pool, async (client) => {
      const changed = await definitions.setDisabled(client, id, disabled);
      if (!changed) throw WorkflowErrors.notFound('No such deployment');
      if (disabled) await cancelTimerStarts(client, id);
      else if (changed.wasDisabled) await this.rearmTimerStarts(client, changed.record);
      return changed.record;
    });
  }

  /**
   * Sets how many days the history of the version's instances is kept after they end (Developer);
   * null: the global retention. Applies to ended instances too, at the next housekeeping run.
   */
  async setHistoryTimeToLive(
    identity: Identity,
    id: string,
    days: number | null,
  ): Promise<definitions.DefinitionRecord> {
    await this.find(identity, id, ['Developer']);
    const changed = await definitions.setHistoryTimeToLive(this.pool, id, days);
    if (!changed) throw WorkflowErrors.notFound('No such deployment');
    return changed;
  }

  private async rearmTimerStarts(
    client: PoolClient,
    definition: definitions.DefinitionRecord,
  ): Promise<void> {
    const model = await this.models.get(definition.id);
    if (model.startEventIds.timer.length === 0) return;
    const starts = timerStartsOf(model, this.clock.now());
    // Checked at deploy; a FEEL timer that now gives nonsense (it read the clock) is not armed.
    if (!starts.ok)
      throw WorkflowErrors.validation('The timer start events cannot be armed', {
        errors: starts.problems.map((problem) => ({
          element_id: problem.elementId,
          message: problem.message,
        })),
      });
    await armTimerStarts(
      client,
      { orgId: definition.org_id, definitionId: definition.id },
      starts.starts,
      this.clock.now(),
    );
  }

  /** A version's instance counts and its live tokens and open incidents per element (Reader). */
  async statistics(
    identity: Identity,
    id: string,
  ): Promise<{ instances: statistics.InstanceCounts; elements: statistics.ElementCounts[] }> {
    await this.find(identity, id, ['Developer', 'Operator', 'Reader']);
    const [instances, elements] = await Promise.all([
      statistics.instanceCountsOfDefinition(this.pool, id),
      statistics.elementCountsOfDefinition(this.pool, id),
    ]);
    return { instances, elements };
  }

  /** Instance counts per version of an org, or of one key (Reader). */
  async instanceCounts(
    identity: Identity,
    orgId: string,
    processKey: string | undefined,
  ): Promise<(statistics.InstanceCounts & { definition_id: string })[]> {
    requireOrgRole(identity, orgId, ['Developer', 'Operator', 'Reader']);
    return statistics.instanceCountsOfOrg(this.pool, orgId, processKey);
  }

  /** Renames every version and draft of a key in one statement (Developer). */
  async renameByKey(
    identity: Identity,
    input: { org_id: string; process_group_id: string; process_key: string; name: string },
  ): Promise<void> {
    requireOrgRole(identity, input.org_id, ['Developer']);
    const renamed = await definitions.renameKey(this.pool, {
      orgId: input.org_id,
      processGroupId: input.process_group_id,
      processKey: input.process_key,
      name: input.name,
    });
    if (renamed === 0)
      throw WorkflowErrors.notFound('No deployment of this process key in this process group');
  }

  private async find(
    identity: Identity,
    id: string,
    roles: Parameters<typeof requireOrgRole>[2],
  ): Promise<definitions.DefinitionRecord & { xml: string }> {
    const definition = await definitions.findDefinition(this.pool, id);
    if (!definition) throw WorkflowErrors.notFound('No such deployment');
    requireOrgRole(identity, definition.org_id, roles);
    return definition;
  }
}

// The forms of a deployment through weft's API, checked; a draft takes none (a draft is no version,
// and a form's versions are what running tasks read).
function checkForms(
  input: DeployInput,
): { ok: true; forms: FormDocument[] } | { ok: false; problems: { form: string; message: string }[] } {
  const inputs = input.forms ?? [];
  if (inputs.length > 0 && input.draft === true)
    return {
      ok: false,
      problems: [
        {
          form: inputs[0]?.name ?? '',
          message: 'forms cannot be deployed with a draft: deploy them with a version',
        },
      ],
    };
  const forms: FormDocument[] = [];
  const problems: { form: string; message: string }[] = [];
  const names = new Set<string>();
  for (const entry of inputs) {
    if (names.has(entry.name))
      problems.push({ form: entry.name, message: `two forms are named '${entry.name}'` });
    names.add(entry.name);
    const checked = checkFormSchema(entry.name, entry.schema);
    if (checked.ok) forms.push(checked.form);
    else problems.push({ form: entry.name, message: checked.message });
  }
  for (const problem of formSetProblems(forms))
    problems.push({ form: problem.name, message: problem.message });
  return problems.length === 0 ? { ok: true, forms } : { ok: false, problems };
}
