import type { ImmediateWork } from '../engine/driver/immediate-work.js';

/**
 * Send tasks complete at once: the message they send is recorded by the engine's write and
 * delivered after it commits (see the driver's event hooks), like a message throw event's.
 */
export const sendTaskWork: ImmediateWork = {
  handles: (wait) => wait.kind === 'send',
  run: (wait) => Promise.resolve({ event: { type: 'complete', waitId: wait.waitId } }),
};
