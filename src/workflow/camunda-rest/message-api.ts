import type { Static } from 'typebox';
import type { Pool } from '../../platform/database/pool.js';
import type { ModelCache } from '../deployments/model-cache.js';
import type { InstanceDriver } from '../engine/driver/instance-driver.js';
import type { Variables } from '../engine/runtime/index.js';
import { findCorrelatableMessageWaits, type CorrelatableWait } from '../engine/store/event-subscriptions.js';
import { isEnded, type InstanceRecord } from '../engine/store/process-instances.js';
import { isGone } from '../events/message-service.js';
import type { SignalService } from '../events/signal-service.js';
import { StartTriggers } from '../events/start-triggers.js';
import { requireOrgRole } from '../identity/auth/authorization.js';
import type { Identity } from '../identity/auth/identity.js';
import { CamundaErrors } from './camunda-errors.js';
import type { MessageCorrelationResultDto } from './message-dto.js';
import type { CorrelateMessageBody, SignalBody } from './message-schemas.js';
import { isWeftId } from './query-parameters.js';
import type { Tenant, Tenants } from './tenants.js';
import { decodeVariables, encodeVariables } from './variables.js';

// How many waits one `all` correlation completes at most.
const maxCorrelations = 1000;

/**
 * Camunda 7's message correlation and signal broadcast over weft's engine (docs/workflow/camunda7.md,
 * Messages). A message goes, as in Camunda, to exactly one target unless `all`: the one open wait
 * that matches the business key, instance id and correlation keys (root variables), else the one
 * process whose latest version starts with the message. Both need the Operator role in the tenant,
 * as weft's own POST /api/v1/messages and /signals do.
 */
export class CamundaMessageApi {
  private readonly starts: StartTriggers;

  constructor(
    private readonly pool: Pool,
    private readonly driver: InstanceDriver,
    models: ModelCache,
    private readonly signals: SignalService,
    private readonly tenants: Tenants,
  ) {
    this.starts = new StartTriggers(pool, models, driver);
  }

  /** POST /message: the results (answered only with `resultEnabled`). */
  async correlate(
    body: Static<typeof CorrelateMessageBody>,
    identity: Identity,
  ): Promise<MessageCorrelationResultDto[]> {
    const name = body.messageName;
    if (name === undefined || name === null || name === '')
      throw CamundaErrors.invalid('No message name supplied');
    if (body.tenantId != null && body.withoutTenantId === true)
      throw CamundaErrors.invalid(
        "Parameter 'tenantId' cannot be used together with parameter 'withoutTenantId'.",
      );
    if (hasEntries(body.localCorrelationKeys))
      throw CamundaErrors.invalid(
        "localCorrelationKeys are not supported by weft: correlate by correlationKeys (the instance's root variables), businessKey or processInstanceId",
      );
    const tenant = await this.tenants.single(identity, body.tenantId ?? undefined);
    requireOrgRole(identity, tenant.orgId, ['Operator']);
    const keys = decodeVariables(body.correlationKeys, 'correlationKeys');
    const variables: Variables = {
      ...decodeVariables(body.processVariablesToTriggeredScope, 'processVariablesToTriggeredScope'),
      ...decodeVariables(body.processVariablesLocal, 'processVariablesLocal'),
      ...decodeVariables(body.processVariables, 'processVariables'),
    };
    const instanceId = body.processInstanceId ?? null;
    // Every weft instance belongs to a tenant, and an id that is not weft's names none.
    const nothing = body.withoutTenantId === true || (instanceId !== null && !isWeftId(instanceId));
    const all = body.all === true;
    const waits = nothing
      ? []
      : await findCorrelatableMessageWaits(this.pool, {
          orgId: tenant.orgId,
          messageName: name,
          businessKey: body.businessKey ?? null,
          processInstanceId: instanceId,
          variables: keys,
          limit: all ? maxCorrelations : 2,
        });
    // A named instance selects its waits only; correlation keys do not apply to starts (as in Camunda).
    const startable =
      nothing || instanceId !== null || (!all && waits.length > 0)
        ? []
        : await this.starts.candidates(tenant.orgId, 'message', name);
    if (!all) {
      if (waits.length > 1)
        throw cannotCorrelate(
          name,
          `${waits.length} executions match the parameters; pass all: true to correlate to each`,
        );
      if (waits.length === 0 && startable.length > 1)
        throw cannotCorrelate(name, `${startable.length} process definitions match the parameters`);
    }
    const results: MessageCorrelationResultDto[] = [];
    for (const wait of waits) {
      const instance = await this.deliver(wait, variables);
      if (instance !== null) results.push(executionResult(wait, instance, tenant));
    }
    if (all || results.length === 0) {
      for (const { version, startEventId } of startable) {
        const { instance } = await this.driver.start(version, {
          variables,
          businessKey: body.businessKey ?? null,
          startEventId,
        });
        results.push(instanceResult(instance, tenant));
      }
    }
    if (results.length === 0 && !all)
      throw cannotCorrelate(name, 'No process definition or execution matches the parameters');
    if (body.variablesInResultEnabled !== true) return results.map(withoutVariables);
    return results;
  }

  /** POST /signal: to every waiting instance and every process that starts with it, in the tenant. */
  async signal(body: Static<typeof SignalBody>, identity: Identity): Promise<void> {
    if (body.executionId != null)
      throw CamundaErrors.invalid(
        'executionId is not supported by weft: a signal goes to every instance waiting for it',
      );
    if (body.tenantId != null && body.withoutTenantId === true)
      throw CamundaErrors.invalid(
        "Parameter 'tenantId' cannot be used together with parameter 'withoutTenantId'.",
      );
    const tenant = await this.tenants.single(identity, body.tenantId ?? undefined);
    requireOrgRole(identity, tenant.orgId, ['Operator']);
    const variables = decodeVariables(body.variables);
    // Every weft instance belongs to a tenant: a signal for those without one reaches none.
    if (body.withoutTenantId === true) return;
    await this.signals.broadcast({ orgId: tenant.orgId, signalName: body.name, variables });
  }

  // The wait may have closed since it was read (another message, the instance moved on): then it is skipped.
  private async deliver(wait: CorrelatableWait, variables: Variables): Promise<InstanceRecord | null> {
    try {
      const { instance } = await this.driver.apply(wait.instanceId, {
        type: 'complete',
        waitId: wait.waitId,
        variables,
      });
      return instance;
    } catch (error) {
      if (isGone(error)) return null;
      throw error;
    }
  }
}

function executionResult(
  wait: CorrelatableWait,
  instance: InstanceRecord,
  tenant: Tenant,
): MessageCorrelationResultDto {
  return {
    resultType: 'Execution',
    execution: {
      id: wait.waitId,
      processInstanceId: instance.id,
      ended: isEnded(instance.state),
      tenantId: tenant.tenantId,
    },
    processInstance: null,
    variables: encodeVariables(instance.variables),
  };
}

function instanceResult(instance: InstanceRecord, tenant: Tenant): MessageCorrelationResultDto {
  return {
    resultType: 'ProcessDefinition',
    execution: null,
    processInstance: {
      links: [],
      id: instance.id,
      definitionId: instance.definition_id,
      businessKey: instance.business_key,
      caseInstanceId: null,
      ended: isEnded(instance.state),
      suspended: instance.suspended,
      tenantId: tenant.tenantId,
    },
    variables: encodeVariables(instance.variables),
  };
}

function withoutVariables({
  variables: _variables,
  ...result
}: MessageCorrelationResultDto): MessageCorrelationResultDto {
  return result;
}

function cannotCorrelate(messageName: string, reason: string): Error {
  return CamundaErrors.rest(400, `Cannot correlate message '${messageName}': ${reason}`);
}

function hasEntries(value: Record<string, unknown> | null | undefined): boolean {
  return value !== null && value !== undefined && Object.keys(value).length > 0;
}
