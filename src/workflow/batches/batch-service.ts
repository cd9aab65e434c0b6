import { randomUUID } from 'node:crypto';
import type { Clock } from '../../platform/clock.js';
import { withTransaction, type Pool } from '../../platform/database/pool.js';
import type { JobExecutor } from '../../platform/jobs/job-executor.js';
import { requireOrgRole } from '../identity/auth/authorization.js';
import type { Identity, OrgRole } from '../identity/auth/identity.js';
import { WorkflowErrors } from '../errors.js';
import { insertSelectedItems, type BatchItem, type ItemSelection } from './batch-item-repository.js';
import type { BatchOperations } from './batch-operations.js';
import { findBatch, insertBatch, listBatches, setBatchTotal, type BatchRecord } from './batch-repository.js';

const readers: OrgRole[] = ['Developer', 'Operator', 'Reader'];

/** Most instance ids a batch request may list. */
export const MAX_BATCH_INSTANCE_IDS = 100_000;

/** A batch to create. */
export interface BatchRequest {
  orgId: string;
  type: string;
  instanceIds?: readonly string[] | undefined;
  filter?: Omit<ItemSelection, 'orgId' | 'instanceIds'> | undefined;
  /** The type's own parameters (a migration's `plan`). */
  params: Record<string, unknown>;
}

/**
 * Batches: an operation of the registry over a selection of instances, resolved to item rows when
 * the batch is created and run asynchronously by the batch executor. Creating needs the Operator
 * role of the org; reading, any role there.
 */
export class BatchService {
  constructor(
    private readonly pool: Pool,
    private readonly operations: BatchOperations,
    private readonly clock: Clock,
    private readonly executor: Pick<JobExecutor<BatchItem>, 'nudge'>,
    /** Most instances one batch may hold (its item rows are inserted with it, in one transaction). */
    private readonly maxItems: number,
  ) {}

  /** Creates a batch; 400 for an unknown type, bad parameters, or a selection with no instance. */
  async create(identity: Identity, request: BatchRequest): Promise<BatchRecord> {
    requireOrgRole(identity, request.orgId, ['Operator']);
    const operation = this.operations.get(request.type);
    if (operation === undefined)
      throw WorkflowErrors.validation(
        `Unknown batch type ${request.type}; one of ${this.operations.types().join(', ')}`,
      );
    if ((request.instanceIds === undefined) === (request.filter === undefined))
      throw WorkflowErrors.validation('Give either instance_ids or filter');
    const params = await operation.parse(request.params, { orgId: request.orgId, identity });
    const id = randomUUID();
    await withTransaction(this.pool, async (client) => {
      await insertBatch(client, {
        id,
        orgId: request.orgId,
        type: request.type,
        params,
        createdBy: identity.userId,
        now: this.clock.now(),
      });
      const total = await insertSelectedItems(
        client,
        id,
        { orgId: request.orgId, instanceIds: request.instanceIds, ...request.filter },
        this.maxItems + 1,
      );
      if (total === 0) throw WorkflowErrors.validation('The selection has no process instance');
      if (total > this.maxItems)
        throw WorkflowErrors.validation(
          `The selection has more than ${this.maxItems} process instances; narrow the filter or split the batch`,
        );
      await setBatchTotal(client, id, total);
    });
    this.executor.nudge();
    const batch = await findBatch(this.pool, id);
    if (!batch) throw new Error('a batch just created was not found');
    return batch;
  }

  /** A batch with its counts and failures. */
  async get(identity: Identity, id: string): Promise<BatchRecord> {
    const batch = await findBatch(this.pool, id);
    if (!batch) throw WorkflowErrors.notFound('No such batch');
    requireOrgRole(identity, batch.org_id, readers);
    return batch;
  }

  /** The batches of an org, newest first. */
  async list(
    identity: Identity,
    page: { orgId: string; limit: number; offset: number },
  ): Promise<BatchRecord[]> {
    requireOrgRole(identity, page.orgId, readers);
    return listBatches(this.pool, page);
  }
}
