import { withTransaction, type Pool } from '../../platform/database/pool.js';
import { requireOrgRole } from '../auth/authorization.js';
import type { Identity } from '../auth/identity.js';
import { compileBpmn, bpmnContentHash, type ExtensionSpec } from '../engine/model/index.js';
import { WorkflowErrors } from '../errors.js';
import * as definitions from './definition-repository.js';
import type { ModelCache } from './model-cache.js';

/** Input of a deployment. */
export interface DeployInput {
  org_id: string;
  process_group_id: string;
  xml: string;
  draft?: boolean | undefined;
}

/** What a deployment produced: one definition per executable process, and whether any is new. */
export interface DeployResult {
  created: boolean;
  definitions: definitions.DefinitionRecord[];
}

/** Deploys BPMN as versioned definitions; lists, shows, disables and renames them. */
export class DeploymentService {
  constructor(
    private readonly pool: Pool,
    private readonly models: ModelCache,
    private readonly extensions: Record<string, ExtensionSpec>,
  ) {}

  /**
   * Validates the XML (400 with every problem), then stores each executable process as the next
   * version of its key — or returns the latest version unchanged when the XML is identical to it.
   */
  async deploy(identity: Identity, input: DeployInput): Promise<DeployResult> {
    requireOrgRole(identity, input.org_id, ['Developer']);
    const compiled = await compileBpmn(input.xml, { extensions: this.extensions });
    if (!compiled.ok) {
      throw WorkflowErrors.validation('The BPMN cannot be deployed', {
        errors: compiled.problems.map((problem) => ({
          element_id: problem.elementId,
          message: problem.message,
        })),
      });
    }
    const contentHash = bpmnContentHash(input.xml);
    const result = await withTransaction(this.pool, async (client) => {
      if (!(await definitions.processGroupInOrg(client, input.org_id, input.process_group_id))) {
        throw WorkflowErrors.notFound('No such process group in this organisation');
      }
      const deployed: definitions.DefinitionRecord[] = [];
      let created = false;
      // Keys are locked in a fixed order so two deployments of the same collaboration cannot deadlock.
      const processes = [...compiled.processes].sort((a, b) => a.processKey.localeCompare(b.processKey));
      for (const model of processes) {
        const key = await definitions.lockProcessKey(client, input.org_id, model.processKey);
        if (!input.draft && key.latest?.contentHash === contentHash) {
          const existing = await definitions.findDefinition(client, key.latest.id);
          if (existing) {
            const { xml: _xml, ...record } = existing;
            deployed.push(record);
            continue;
          }
        }
        const record = await definitions.insertDefinition(client, {
          orgId: input.org_id,
          processGroupId: input.process_group_id,
          processKey: model.processKey,
          version: input.draft ? null : key.lastVersion + 1,
          name: model.name,
          xml: input.xml,
          contentHash,
          model,
        });
        this.models.remember(record.id, model);
        deployed.push(record);
        created = true;
      }
      return { created, definitions: deployed };
    });
    return result;
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

  /** Disables or enables a version (Developer); drafts cannot be disabled (409). */
  async setDisabled(
    identity: Identity,
    id: string,
    disabled: boolean,
  ): Promise<definitions.DefinitionRecord> {
    const definition = await this.find(identity, id, ['Developer']);
    if (definition.draft)
      throw WorkflowErrors.conflict('A draft cannot be disabled or enabled; deploy it as a version first');
    const updated = await definitions.setDisabled(this.pool, id, disabled);
    if (!updated) throw WorkflowErrors.notFound('No such deployment');
    return updated;
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
