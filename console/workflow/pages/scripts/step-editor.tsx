import type { EditedStep, StepType } from './types.js';

const types: { value: StepType; label: string }[] = [
  { value: 'jq', label: 'jq' },
  { value: 'feel', label: 'FEEL' },
  { value: 'rhai', label: 'Rhai' },
];

/** The fields of one pipeline step, in a fieldset named "Step n", with move and remove buttons. */
export function StepEditor(props: {
  step: EditedStep;
  position: number;
  count: number;
  onChange: (step: EditedStep) => void;
  onMove: (offset: -1 | 1) => void;
  onRemove: () => void;
}) {
  const { step, position } = props;
  const set = (change: Partial<EditedStep>) => props.onChange({ ...step, ...change });
  return (
    <fieldset class="step">
      <legend>Step {position}</legend>
      <div class="filters">
        <label>
          Name
          <input required value={step.name} onInput={(event) => set({ name: event.currentTarget.value })} />
        </label>
        <label>
          Language
          <select
            value={step.type}
            onChange={(event) => set({ type: event.currentTarget.value as StepType })}
          >
            {types.map((type) => (
              <option key={type.value} value={type.value}>
                {type.label}
              </option>
            ))}
          </select>
        </label>
        {step.type === 'jq' ? null : (
          <label>
            Result variable
            <input
              value={step.result_variable}
              onInput={(event) => set({ result_variable: event.currentTarget.value })}
            />
          </label>
        )}
      </div>
      <label>
        Expression
        <textarea
          rows={3}
          spellcheck={false}
          value={step.expression}
          onInput={(event) => set({ expression: event.currentTarget.value })}
        />
      </label>
      <div class="actions">
        <button type="button" disabled={position === 1} onClick={() => props.onMove(-1)}>
          Move up
          <span class="visually-hidden"> step {position}</span>
        </button>
        <button type="button" disabled={position === props.count} onClick={() => props.onMove(1)}>
          Move down
          <span class="visually-hidden"> step {position}</span>
        </button>
        <button type="button" class="danger" disabled={props.count === 1} onClick={props.onRemove}>
          Remove
          <span class="visually-hidden"> step {position}</span>
        </button>
      </div>
    </fieldset>
  );
}
