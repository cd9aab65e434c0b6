import type { FlowModel } from '../model/index.js';
import { evaluateExpression, expressionScope } from './expression.js';
import type { Run } from './run.js';
import type { TokenState, Variables } from './types.js';
import { tokenVariables } from './variables.js';

/**
 * The outgoing flows a token takes by their conditions: every flow without a condition and every
 * flow whose condition is `true` (only the first such when `all` is false), or the default flow
 * when none is. A condition is true only when it evaluates to `true`; null is false, any other
 * value is an incident (retried by choosing again) and gives null. `extra` variables (such as a
 * complex gateway's `waitingForStart`) shadow the token's.
 */
export function chooseFlows(
  run: Run,
  token: TokenState,
  flows: readonly FlowModel[],
  all: boolean,
  extra: Variables = {},
): FlowModel[] | null {
  const variables = { ...tokenVariables(run.state, token), ...extra };
  const chosen: FlowModel[] = [];
  for (const flow of flows) {
    if (flow.isDefault) continue;
    if (flow.condition === null) {
      chosen.push(flow);
    } else {
      const result = evaluateExpression(flow.condition, variables, expressionScope(run, token));
      if (!result.ok || (result.value !== null && typeof result.value !== 'boolean')) {
        const why = result.ok ? `gave ${JSON.stringify(result.value)}, not a boolean` : result.message;
        run.raiseIncident(token, 'expression', `condition of '${flow.id}': ${why}`, { action: 'split' });
        return null;
      }
      if (result.value === true) chosen.push(flow);
    }
    if (!all && chosen.length > 0) return chosen;
  }
  if (chosen.length > 0) return chosen;
  return flows.filter((flow) => flow.isDefault);
}

/** The model's flows with these ids, in the given order. */
export function flowsOf(run: Run, flowIds: readonly string[]): FlowModel[] {
  return flowIds.map((id) => run.model.flows[id]).filter((flow): flow is FlowModel => flow !== undefined);
}
