import type { ExternalTask, Variables } from './types.js';

/** A locked task as the engine sends it from fetch-and-lock. */
export interface WireTask {
  id: string;
  topic_name: string;
  process_instance_id: string;
  activity_id: string;
  variables: Variables | null;
  retries: number;
  lock_expires_at: string;
  org_id: string;
}

/** Reads one element of a fetch-and-lock answer; throws a TypeError naming what is wrong. */
export function taskFromWire(value: unknown): ExternalTask {
  if (typeof value !== 'object' || value === null) throw new TypeError('a locked task is not an object');
  const wire = value as Partial<Record<keyof WireTask, unknown>>;
  const text = (key: keyof WireTask): string => {
    const field = wire[key];
    if (typeof field !== 'string') throw new TypeError(`a locked task has no string ${key}`);
    return field;
  };
  const variables = wire.variables ?? {};
  if (typeof variables !== 'object' || Array.isArray(variables)) {
    throw new TypeError('a locked task has variables that are not an object');
  }
  const retries = typeof wire.retries === 'number' && Number.isFinite(wire.retries) ? wire.retries : 0;
  return {
    id: text('id'),
    topicName: text('topic_name'),
    processInstanceId: text('process_instance_id'),
    activityId: text('activity_id'),
    variables: variables as Variables,
    retries,
    lockExpiresAt: new Date(text('lock_expires_at')),
    orgId: text('org_id'),
  };
}
