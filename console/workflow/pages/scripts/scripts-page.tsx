import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { Page } from '../../../shared/components/page.js';
import { parseJsonObject } from '../../components/json-object-input.js';
import { useAction } from '../../components/use-action.js';
import { api } from '../../session.js';
import { StepEditor } from './step-editor.js';
import { StepResults } from './step-results.js';
import type { EditedStep, PipelineRun } from './types.js';

let nextUid = 1;
const newStep = (fields: Omit<EditedStep, 'uid'>): EditedStep => ({ uid: nextUid++, ...fields });

const example = () => [
  newStep({
    name: 'total',
    type: 'jq',
    expression: '{total: (.items | map(.price) | add)}',
    result_variable: '',
  }),
  newStep({ name: 'gross', type: 'feel', expression: 'total * 1.2', result_variable: 'gross' }),
];

/**
 * The script pipeline playground: edit jq, FEEL and Rhai steps and sample variables, run them with
 * `POST /api/v1/scripts/execute` (nothing is started or stored), and see each step's output,
 * duration, or error position.
 */
export function ScriptsPage() {
  const [steps, setSteps] = useState<EditedStep[]>(example);
  const [variables, setVariables] = useState('{\n  "items": [{ "price": 2 }, { "price": 3 }]\n}');
  const [runUntil, setRunUntil] = useState('');
  const action = useAction<{ run: PipelineRun; steps: EditedStep[] }>();

  const update = (index: number, step: EditedStep) =>
    setSteps(steps.map((current, i) => (i === index ? step : current)));
  const move = (index: number, offset: -1 | 1) => {
    const moved = [...steps];
    const [step] = moved.splice(index, 1);
    if (step) moved.splice(index + offset, 0, step);
    setSteps(moved);
  };
  const run = () => {
    const sent = steps;
    action.run(async () => {
      const answer = await api.post<PipelineRun>('/api/v1/scripts/execute', {
        steps: sent.map((step) => ({
          name: step.name,
          type: step.type,
          expression: step.expression,
          ...(step.type === 'jq' || step.result_variable === ''
            ? {}
            : { result_variable: step.result_variable }),
        })),
        variables: parseJsonObject(variables, 'Input variables'),
        run_until_step: runUntil === '' || !sent.some((step) => step.name === runUntil) ? null : runUntil,
      });
      return { run: answer, steps: sent };
    });
  };

  return (
    <Page title="Script playground">
      <p class="muted">Runs a Script Task pipeline over sample variables. Nothing is started or stored.</p>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          run();
        }}
      >
        {steps.map((step, index) => (
          <StepEditor
            key={step.uid}
            step={step}
            position={index + 1}
            count={steps.length}
            onChange={(changed) => update(index, changed)}
            onMove={(offset) => move(index, offset)}
            onRemove={() => setSteps(steps.filter((_, i) => i !== index))}
          />
        ))}
        <div>
          <button
            type="button"
            onClick={() =>
              setSteps([
                ...steps,
                newStep({
                  name: `step${steps.length + 1}`,
                  type: 'jq',
                  expression: '.',
                  result_variable: '',
                }),
              ])
            }
          >
            Add step
          </button>
        </div>
        <label>
          Input variables (JSON object)
          <textarea
            rows={5}
            spellcheck={false}
            value={variables}
            onInput={(event) => setVariables(event.currentTarget.value)}
          />
        </label>
        <div class="filters">
          <label>
            Run until
            <select value={runUntil} onChange={(event) => setRunUntil(event.currentTarget.value)}>
              <option value="">the last step</option>
              {steps.map((step) => (
                <option key={step.uid} value={step.name}>
                  {step.name}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" class="primary" disabled={action.busy}>
            Run
          </button>
        </div>
        <ErrorNotice error={action.error} />
      </form>
      {action.answer ? <StepResults run={action.answer.run} steps={action.answer.steps} /> : null}
    </Page>
  );
}
