import { systemClock, type Clock } from '../../platform/clock.js';
import type { Pool, PoolClient } from '../../platform/database/pool.js';
import { requireOrgRole } from '../identity/auth/authorization.js';
import type { Identity, OrgRole } from '../identity/auth/identity.js';
import {
  findDefinition,
  findLatestEnabled,
  hasDeployedVersion,
} from '../engine/store/process-definitions.js';
import {
  listOpenIncidents,
  openIncidentIds,
  type IncidentFilter,
  type IncidentRecord,
  type OrgIncidentRecord,
} from '../engine/store/incidents.js';
import { instanceHistory, type HistoryRecord } from '../engine/store/process-history.js';
import {
  findInstance,
  instanceDetail,
  listInstances,
  type InstanceFilter,
  type InstancePage,
  type InstanceRecord,
} from '../engine/store/process-instances.js';
import { StaleDefinitionError } from '../engine/driver/driver-errors.js';
import type { InstanceDriver } from '../engine/driver/instance-driver.js';
import type { Variables } from '../engine/runtime/index.js';
import { WorkflowErrors } from '../errors.js';
import {
  modifyInstance,
  resumeDefinition,
  resumeInstance,
  suspendDefinition,
  suspendInstance,
  type DefinitionSuspension,
  type ModificationRequest,
  type OperationsContext,
} from './instance-operations.js';
import { LatestDefinitionCache } from './latest-definition-cache.js';

const readers: OrgRole[] = ['Developer', 'Operator', 'Reader'];

// Starts by key retried after their cached definition proved stale (a deploy, disable or rename).
const staleDefinitionAttempts = 3;

/** Input of a manual start. */
export interface StartRequest {
  org_id: string;
  process_key?: string | undefined;
  definition_id?: string | undefined;
  business_key?: string | undefined;
  variables?: Variables | undefined;
}

/** A live token, as the instance detail shows it (its id is what a modification's `cancelToken` names). */
export interface TokenRecord {
  id: string;
  element_id: string;
  /** The scope instance it lives in (a modification's `ancestorScopeId`). */
  scope_id: string;
  /** The scope it owns (a sub-process it runs), if any. */
  local_scope_id: string | null;
  phase: string;
}

/** An instance with what an operator needs to see. */
export type InstanceDetail = InstanceRecord & {
  active_element_ids: string[];
  incidents: IncidentRecord[];
  tokens: TokenRecord[];
};

/** Starting, listing, inspecting and steering process instances. */
export class InstanceService {
  private readonly latest = new LatestDefinitionCache();

  private readonly operations: OperationsContext;

  constructor(
    private readonly pool: Pool,
    private readonly driver: InstanceDriver,
    clock: Clock = systemClock,
  ) {
    this.operations = { pool, driver, clock };
  }

  /**
   * Starts an instance of the latest enabled version of `process_key`, or of `definition_id`.
   * Drafts and disabled versions never start (409). Runs synchronously until every token waits.
   * `db` makes the start part of the caller's transaction (an idempotent start's key row); without
   * it, concurrent starts of a definition share one statement and commit.
   */
  async start(identity: Identity, request: StartRequest, db?: Pool | PoolClient): Promise<InstanceRecord> {
    requireOrgRole(identity, request.org_id, ['Operator']);
    // The starting user's email is `camunda:initiator`'s value (an API key's user's, too).
    const input = {
      variables: request.variables ?? {},
      businessKey: request.business_key ?? null,
      initiator: identity.email,
    };
    const write = (
      definition: { id: string; org_id: string; process_key: string },
      options: { latestEnabled?: boolean } = {},
    ) =>
      db === undefined || db === this.pool
        ? this.driver.startTogether(definition, { ...input, ...options })
        : this.driver.start(definition, { ...input, ...options }, db);
    if (request.definition_id !== undefined) {
      return (await write(await this.resolveById(request, request.definition_id))).instance;
    }
    if (request.process_key === undefined)
      throw WorkflowErrors.validation('Give process_key or definition_id');
    for (let attempt = 1; ; attempt++) {
      const definition = await this.latestEnabled(request.org_id, request.process_key);
      try {
        return (await write(definition, { latestEnabled: true })).instance;
      } catch (error) {
        if (!(error instanceof StaleDefinitionError)) throw error;
        this.latest.forget(request.org_id, request.process_key);
        if (attempt >= staleDefinitionAttempts)
          throw WorkflowErrors.conflict(`${request.process_key} is being redeployed; try again`);
      }
    }
  }

  /** A page of instances with the filter's total. */
  async list(identity: Identity, filter: InstanceFilter): Promise<InstancePage> {
    requireOrgRole(identity, filter.orgId, readers);
    return listInstances(this.pool, filter);
  }

  /** A page of the org's open incidents across its instances, newest first. */
  async incidents(
    identity: Identity,
    filter: IncidentFilter,
  ): Promise<{ items: OrgIncidentRecord[]; last: { at: string; id: string } | null }> {
    requireOrgRole(identity, filter.orgId, readers);
    return listOpenIncidents(this.pool, filter);
  }

  /** The instance with its variables, active elements and open incidents. */
  async get(identity: Identity, id: string): Promise<InstanceDetail> {
    const instance = await this.authorize(identity, id, readers);
    const detail = await instanceDetail(this.pool, id);
    if (!detail) throw WorkflowErrors.notFound('No such process instance');
    const live = Object.values(detail.engineState.tokens).filter((token) => token.phase !== 'active');
    const active = live.map((token) => token.elementId);
    const tokens = live.map((token) => ({
      id: token.id,
      element_id: token.elementId,
      scope_id: token.scopeId,
      local_scope_id: token.localScopeId,
      phase: token.phase,
    }));
    return {
      ...instance,
      active_element_ids: [...new Set(active)].sort(),
      incidents: detail.incidents,
      tokens,
    };
  }

  /** The ordered execution history. */
  async history(identity: Identity, id: string): Promise<HistoryRecord[]> {
    await this.authorize(identity, id, readers);
    return instanceHistory(this.pool, id);
  }

  /** Resumes every open incident of the instance (Operator): failed jobs get their retries back. */
  async retry(identity: Identity, id: string): Promise<InstanceRecord> {
    await this.authorize(identity, id, ['Operator']);
    const incidents = await openIncidentIds(this.pool, id);
    if (incidents.length === 0) throw WorkflowErrors.conflict('The process instance has no open incident');
    // Each incident is resumed by its own atomic engine call.
    let instance: InstanceRecord | undefined;
    for (const incidentId of incidents) {
      instance = (await this.driver.apply(id, { type: 'retryIncident', incidentId })).instance;
    }
    if (!instance) throw new Error('unreachable: at least one incident was retried');
    return instance;
  }

  /** Resumes one open incident of the instance (Operator), as `retry` resumes each of them. */
  async retryIncident(identity: Identity, id: string, incidentId: string): Promise<InstanceRecord> {
    await this.authorize(identity, id, ['Operator']);
    return (await this.driver.apply(id, { type: 'retryIncident', incidentId })).instance;
  }

  /** Sets variables on the instance's root scope (Operator); recorded in the history. */
  async setVariables(identity: Identity, id: string, variables: Variables): Promise<InstanceRecord> {
    await this.authorize(identity, id, ['Operator']);
    return (await this.driver.apply(id, { type: 'setVariables', variables })).instance;
  }

  /** Cancels a running instance (Operator); an ended one is 409. */
  async cancel(identity: Identity, id: string): Promise<InstanceRecord> {
    await this.authorize(identity, id, ['Operator']);
    return (await this.driver.apply(id, { type: 'cancel' })).instance;
  }

  /** Suspends a running instance (Operator); recorded in the history with the actor. */
  async suspend(identity: Identity, id: string): Promise<InstanceRecord> {
    await this.authorize(identity, id, ['Operator']);
    return suspendInstance(this.operations, id, identity.userId);
  }

  /** Resumes a suspended instance (Operator); recorded in the history with the actor. */
  async resume(identity: Identity, id: string): Promise<InstanceRecord> {
    await this.authorize(identity, id, ['Operator']);
    return resumeInstance(this.operations, id, identity.userId);
  }

  /** Modifies a running instance's tokens (Operator) in one engine call; see instance-operations.ts. */
  async modify(identity: Identity, id: string, request: ModificationRequest): Promise<InstanceRecord> {
    await this.authorize(identity, id, ['Operator']);
    return modifyInstance(this.operations, id, request, identity.userId);
  }

  /** Suspends a deployed version and its running instances (Operator). */
  async suspendDefinition(identity: Identity, definitionId: string): Promise<DefinitionSuspension> {
    await this.authorizeDefinition(identity, definitionId);
    return suspendDefinition(this.operations, definitionId, identity.userId);
  }

  /** Resumes a suspended version and its suspended running instances (Operator). */
  async resumeDefinition(identity: Identity, definitionId: string): Promise<DefinitionSuspension> {
    await this.authorizeDefinition(identity, definitionId);
    return resumeDefinition(this.operations, definitionId, identity.userId);
  }

  private async authorizeDefinition(identity: Identity, definitionId: string): Promise<void> {
    const definition = await findDefinition(this.pool, definitionId);
    if (!definition) throw WorkflowErrors.notFound('No such deployment');
    requireOrgRole(identity, definition.org_id, ['Operator']);
  }

  private async authorize(identity: Identity, id: string, roles: OrgRole[]): Promise<InstanceRecord> {
    const instance = await findInstance(this.pool, id);
    if (!instance) throw WorkflowErrors.notFound('No such process instance');
    requireOrgRole(identity, instance.org_id, roles);
    return instance;
  }

  private async resolveById(request: StartRequest, definitionId: string) {
    const definition = await findDefinition(this.pool, definitionId);
    if (!definition || definition.org_id !== request.org_id)
      throw WorkflowErrors.notFound('No such deployment');
    if (definition.draft) throw WorkflowErrors.conflict('A draft cannot start instances');
    if (definition.disabled)
      throw WorkflowErrors.conflict(`Version ${definition.version} of ${definition.process_key} is disabled`);
    if (definition.suspended)
      throw WorkflowErrors.conflict(
        `Version ${definition.version} of ${definition.process_key} is suspended`,
      );
    if (request.process_key !== undefined && request.process_key !== definition.process_key) {
      throw WorkflowErrors.validation('definition_id and process_key name different processes');
    }
    return definition;
  }

  /** The latest enabled version of a key, cached (the start's statement re-checks it). */
  private async latestEnabled(orgId: string, processKey: string) {
    const cached = this.latest.get(orgId, processKey);
    if (cached) return cached;
    const latest = await findLatestEnabled(this.pool, orgId, processKey);
    if (latest) {
      // As in Camunda 7, a start by key uses the latest version and fails when it is suspended.
      if (latest.suspended)
        throw WorkflowErrors.conflict(`Version ${latest.version} of ${processKey} is suspended`);
      this.latest.set(latest);
      return latest;
    }
    throw (await hasDeployedVersion(this.pool, orgId, processKey))
      ? WorkflowErrors.conflict(`Every version of ${processKey} is disabled`)
      : WorkflowErrors.notFound(`No deployed process with key ${processKey}`);
  }
}
