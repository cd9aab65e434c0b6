import type { Pool, PoolClient } from '../../platform/database/pool.js';
import type { EventCondition } from '../engine/driver/driver-types.js';
import {
  addClaimedMessageDelete,
  addMessageClaim,
  bufferedMessageExists,
  messageClaimed,
} from '../engine/store/buffered-messages.js';
import { WorkflowErrors } from '../errors.js';

/**
 * The condition of delivering a buffered message: the engine's write locks the message row, goes
 * ahead only while it is there and unexpired, and deletes it in the same statement. Two instances
 * racing for one message: the loser's write finds the row gone, and its retry is refused with 409.
 */
export function claimBufferedMessage(db: Pool | PoolClient, messageId: string): EventCondition {
  return {
    check: async (_stored, now) => {
      if (!(await bufferedMessageExists(db, messageId, now)))
        throw WorkflowErrors.conflict('The buffered message was taken or has expired');
    },
    before: (statement, now) => addMessageClaim(statement, messageId, now),
    sql: () => messageClaimed,
    after: (statement, guard) => addClaimedMessageDelete(statement, guard),
  };
}
