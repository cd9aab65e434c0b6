import type { Pool, PoolClient } from '../../platform/database/pool.js';
import type { ModelCache } from '../deployments/model-cache.js';
import { requireOrgRole } from '../identity/auth/authorization.js';
import type { Identity, OrgRole } from '../identity/auth/identity.js';
import type { InstanceMigrator } from '../engine/driver/instance-migration.js';
import { MigrationRefusedError, type MigrationPlan } from '../engine/driver/instance-migration.js';
import type { ProcessModel } from '../engine/model/index.js';
import {
  checkInstructions,
  generateInstructions,
  type MigrationInstruction,
  type MigrationProblem,
} from '../engine/runtime/index.js';
import { findDefinition } from '../engine/store/process-definitions.js';
import { findInstance, type InstanceRecord } from '../engine/store/process-instances.js';
import { WorkflowErrors } from '../errors.js';

const operators: OrgRole[] = ['Operator'];

/** A plan as the API takes and gives it. */
export interface PlanBody {
  source_definition_id: string;
  target_definition_id: string;
  instructions?: MigrationInstruction[] | undefined;
}

/** A problem as the API shows it: the source element, why, and the instances it concerns. */
export interface ProblemBody {
  element_id: string | null;
  message: string;
  instance_ids?: string[];
}

/**
 * Migration plans (generate, validate) and the migration of one instance; many instances migrate
 * as a batch of type `migrate` (see {@link MigrationService.batchOperation}). Operator role.
 */
export class MigrationService {
  constructor(
    private readonly pool: Pool,
    private readonly models: ModelCache,
    private readonly migrator: InstanceMigrator,
  ) {}

  /** A plan mapping every element of the source to the compatible element of the same id in the target. */
  async generate(identity: Identity, body: PlanBody): Promise<Required<PlanBody>> {
    const { source, target } = await this.definitions(identity, body);
    return { ...body, instructions: generateInstructions(source, target) };
  }

  /**
   * Every problem of a plan: its instructions (unknown ids, types that do not match, an element
   * mapped twice), then every element of the source where an instance can wait, join or fail that
   * the plan leaves unmapped, then, for the given instances (when the instructions themselves are
   * sound), what their actual state adds.
   */
  async validate(
    identity: Identity,
    body: PlanBody,
    instanceIds: readonly string[] = [],
  ): Promise<{ valid: boolean; problems: ProblemBody[] }> {
    const { source, target } = await this.definitions(identity, body);
    const instructions = body.instructions ?? generateInstructions(source, target);
    const ofInstructions = checkInstructions(source, target, instructions).map(asBody);
    const problems: ProblemBody[] = [...ofInstructions];
    const mapped = new Set(instructions.map((i) => i.source));
    for (const id of activeElementIds(source))
      if (!mapped.has(id))
        problems.push({
          element_id: id,
          message: `'${id}' (${source.elements[id]?.type ?? 'element'}) is not mapped: an instance there cannot migrate`,
        });
    const plan: MigrationPlan = {
      sourceDefinitionId: body.source_definition_id,
      targetDefinitionId: body.target_definition_id,
      instructions,
    };
    const byMessage = new Map<string, ProblemBody>();
    for (const instanceId of instanceIds) {
      await this.instanceOf(identity, instanceId);
      if (ofInstructions.length > 0) continue;
      for (const problem of await this.migrator.check(instanceId, plan, this.pool)) {
        const key = `${problem.elementId ?? ''}\n${problem.message}`;
        const known = byMessage.get(key) ?? { ...asBody(problem), instance_ids: [] };
        known.instance_ids?.push(instanceId);
        byMessage.set(key, known);
      }
    }
    problems.push(...byMessage.values());
    return { valid: problems.length === 0, problems };
  }

  /** Migrates one instance at once, in one transaction; 400 with every problem when it cannot. */
  async migrateOne(identity: Identity, body: PlanBody, instanceId: string): Promise<InstanceRecord> {
    const { plan } = await this.resolve(identity, body);
    await this.instanceOf(identity, instanceId);
    try {
      return await this.migrator.migrate(instanceId, plan, this.pool);
    } catch (error) {
      if (error instanceof MigrationRefusedError) throw refused(error.message, error.problems.map(asBody));
      throw error;
    }
  }

  /**
   * The plan of a request checked for an org: both versions there, of one process key, the target
   * deployed (not a draft), and instructions without problems (generated when not given).
   */
  async resolve(
    identity: Identity,
    body: PlanBody,
  ): Promise<{ plan: MigrationPlan; source: ProcessModel; target: ProcessModel; orgId: string }> {
    const resolved = await this.definitions(identity, body);
    const instructions = body.instructions ?? generateInstructions(resolved.source, resolved.target);
    const problems = checkInstructions(resolved.source, resolved.target, instructions);
    if (problems.length > 0) throw refused('The migration plan is invalid', problems.map(asBody));
    return {
      ...resolved,
      plan: {
        sourceDefinitionId: body.source_definition_id,
        targetDefinitionId: body.target_definition_id,
        instructions,
      },
    };
  }

  /** Migrates `instanceId` inside a batch's transaction (the `migrate` batch operation). */
  migrateInBatch(plan: MigrationPlan, instanceId: string, db: Parameters<InstanceMigrator['migrate']>[2]) {
    return this.migrator.migrate(instanceId, plan, db);
  }

  /** Migrates several instances with one statement inside a batch's transaction (all, or it throws). */
  migrateAllInBatch(plan: MigrationPlan, instanceIds: readonly string[], client: PoolClient): Promise<void> {
    return this.migrator.migrateAll(instanceIds, plan, client);
  }

  private async definitions(identity: Identity, body: PlanBody) {
    const [from, to] = await Promise.all([
      findDefinition(this.pool, body.source_definition_id),
      findDefinition(this.pool, body.target_definition_id),
    ]);
    if (!from) throw WorkflowErrors.notFound('No such source deployment');
    requireOrgRole(identity, from.org_id, operators);
    if (!to || to.org_id !== from.org_id) throw WorkflowErrors.notFound('No such target deployment');
    if (from.process_key !== to.process_key)
      throw WorkflowErrors.validation('The source and target are not versions of the same process key');
    if (to.draft) throw WorkflowErrors.conflict('A draft cannot be the target of a migration');
    const [source, target] = await Promise.all([this.models.get(from.id), this.models.get(to.id)]);
    return { source, target, orgId: from.org_id };
  }

  private async instanceOf(identity: Identity, id: string): Promise<InstanceRecord> {
    const instance = await findInstance(this.pool, id);
    if (!instance) throw WorkflowErrors.notFound('No such process instance');
    requireOrgRole(identity, instance.org_id, operators);
    return instance;
  }
}

/** The elements of a model where an instance can rest between two engine calls. */
function activeElementIds(model: ProcessModel): string[] {
  return Object.values(model.elements)
    .filter((element) => {
      switch (element.type) {
        case 'startEvent':
        case 'endEvent':
        case 'boundaryEvent':
        case 'intermediateThrowEvent':
          return false;
        case 'exclusiveGateway':
          return false;
        case 'parallelGateway':
        case 'inclusiveGateway':
          return element.incoming.length > 1;
        default:
          return true;
      }
    })
    .map((element) => element.id)
    .sort();
}

function asBody(problem: MigrationProblem): ProblemBody {
  return { element_id: problem.elementId, message: problem.message };
}

function refused(message: string, problems: ProblemBody[]) {
  return WorkflowErrors.validation(message, { problems });
}
