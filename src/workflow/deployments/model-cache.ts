import type { Pool } from '../../platform/database/pool.js';
import type { ProcessModel } from '../engine/model/index.js';
import { loadModel } from '../engine/store/process-definitions.js';

/**
 * Compiled models by definition id. A definition never changes once deployed, so entries never go
 * stale; the cache is bounded and drops its oldest entry when full.
 */
export class ModelCache {
  private readonly models = new Map<string, ProcessModel>();

  constructor(
    private readonly pool: Pool,
    private readonly capacity = 1000,
  ) {}

  /** The model of `definitionId`, loaded once. */
  async get(definitionId: string): Promise<ProcessModel> {
    const cached = this.models.get(definitionId);
    if (cached) return cached;
    const model = await loadModel(this.pool, definitionId);
    if (!model) throw new Error(`definition ${definitionId} has no model`);
    this.remember(definitionId, model);
    return model;
  }

  /** Adds a model known at deploy time. */
  remember(definitionId: string, model: ProcessModel): void {
    if (this.models.size >= this.capacity) {
      const oldest = this.models.keys().next();
      if (!oldest.done) this.models.delete(oldest.value);
    }
    this.models.set(definitionId, model);
  }
}
