import type { EventDefinition } from '../model/index.js';
import { evaluateExpression, expressionScope } from './expression.js';
import type { Run } from './run.js';
import type {
  ConditionalWait,
  JsonValue,
  MessageWait,
  SignalWait,
  TimerWait,
  TokenState,
  WaitRole,
} from './types.js';
import { tokenVariables } from './variables.js';

/** A catch wait not yet opened, or why it could not be built. */
export type CatchWaitResult =
  { ok: true; wait: MessageWait | TimerWait | SignalWait | ConditionalWait } | { ok: false; message: string };

/** What a token catches: an event definition, or a receive task's message. */
export type CatchTrigger =
  EventDefinition | { kind: 'receive'; messageName: string; correlationKey: string | null };

/** Event kinds thrown to their catchers instead of waited for: error, escalation, compensation, cancel. */
export function isThrownTo(kind: EventDefinition['kind']): boolean {
  return kind === 'error' || kind === 'escalation' || kind === 'compensate' || kind === 'cancel';
}

/**
 * Builds the wait of a catching event (intermediate catch, receive task, boundary event, branch of
 * an event-based gateway). Timer expressions and correlation keys are evaluated now, against the
 * token's variables; the driver computes due dates and correlates messages.
 */
export function buildCatchWait(
  run: Run,
  token: TokenState,
  elementId: string,
  trigger: CatchTrigger,
  role: WaitRole,
): CatchWaitResult {
  const base = { waitId: run.ctx.newId(), elementId, tokenId: token.id, role, openedAt: run.now() };
  switch (trigger.kind) {
    case 'timer': {
      const { timer } = trigger;
      if (!timer.isExpression)
        return { ok: true, wait: { ...base, kind: 'timer', timer, value: timer.value } };
      const result = evaluateExpression(
        timer.value,
        tokenVariables(run.state, token),
        expressionScope(run, token),
      );
      if (!result.ok) return { ok: false, message: `timer of '${elementId}': ${result.message}` };
      return { ok: true, wait: { ...base, kind: 'timer', timer, value: result.value } };
    }
    case 'message':
    case 'receive': {
      const messageName = trigger.messageName;
      if (messageName === null) return { ok: false, message: `'${elementId}' has no message name` };
      const key = evaluateCorrelationKey(run, token, trigger.correlationKey);
      if (!key.ok) return { ok: false, message: `correlation key of '${elementId}': ${key.message}` };
      return { ok: true, wait: { ...base, kind: 'message', messageName, correlationKey: key.value } };
    }
    case 'signal':
      return { ok: true, wait: { ...base, kind: 'signal', signalName: trigger.signalName } };
    case 'conditional': {
      // Evaluated once opened (see conditions.ts), so a condition already true fires at once.
      const { condition, variableName, variableEvents } = trigger;
      return { ok: true, wait: { ...base, kind: 'conditional', condition, variableName, variableEvents } };
    }
    default:
      return { ok: false, message: `'${elementId}' cannot wait for a ${trigger.kind} event` };
  }
}

/**
 * Evaluates a message's correlation key against the token's variables. Zeebe writes it as an
 * expression (`=orderId`); other text is taken as the key itself.
 */
export function evaluateCorrelationKey(
  run: Run,
  token: TokenState,
  raw: string | null,
): { ok: true; value: string | null } | { ok: false; message: string } {
  if (raw === null) return { ok: true, value: null };
  const trimmed = raw.trim();
  if (!trimmed.startsWith('=')) return { ok: true, value: trimmed };
  const result = evaluateExpression(
    trimmed.slice(1),
    tokenVariables(run.state, token),
    expressionScope(run, token),
  );
  if (!result.ok) return result;
  return keyText(result.value);
}

function keyText(value: JsonValue): { ok: true; value: string } | { ok: false; message: string } {
  if (typeof value === 'string') return { ok: true, value };
  if (typeof value === 'number') return { ok: true, value: String(value) };
  return { ok: false, message: `expected a string or a number, got ${JSON.stringify(value)}` };
}
