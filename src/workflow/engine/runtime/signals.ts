import { cloneJson } from './json.js';
import type { Run } from './run.js';
import type { Variables } from './types.js';
import { triggerWait } from './wait-triggers.js';

/**
 * A signal thrown in this instance reaches the instance's own signal catches that are open when it
 * is thrown (intermediate catches, boundary events, event sub-processes, event-based gateway
 * branches), at once: BPMN broadcasts a signal to every active catch, the thrower's instance
 * included, and after the write commits those catches may have closed. The driver's broadcast to
 * other instances skips this one, so each catch fires once.
 */
export function catchOwnSignal(run: Run, signalName: string, variables: Variables): void {
  const open = Object.values(run.state.waits).filter(
    (wait) => wait.kind === 'signal' && wait.signalName === signalName,
  );
  for (const { waitId } of open) {
    // An earlier catch (an interrupting one) may have closed this one.
    const wait = run.state.waits[waitId];
    if (wait !== undefined) triggerWait(run, wait, cloneJson(variables));
  }
}
