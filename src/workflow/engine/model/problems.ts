import type { ModelProblem } from './types.js';

/** Collects every problem found while compiling, in the order found. */
export class Problems {
  readonly list: ModelProblem[] = [];

  /** Records a problem about an element (or the whole document when `elementId` is null). */
  add(elementId: string | null, message: string): void {
    this.list.push({ elementId, message });
  }

  /** True when nothing has been recorded. */
  get empty(): boolean {
    return this.list.length === 0;
  }
}
