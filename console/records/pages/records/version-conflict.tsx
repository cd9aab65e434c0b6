import { displayValue, type FieldDescription, type RecordData } from '../../schema-description.js';
import type { FormValues } from './field-values.js';

/**
 * What a 409 `OPTIMISTIC_LOCK_FAILED` shows: the record changed since the form was loaded, so
 * nothing was overwritten. The current values beside the user's, and the two ways on.
 */
export function VersionConflict(props: {
  fields: FieldDescription[];
  current: RecordData;
  mine: FormValues;
  expected: number;
  onTakeCurrent: () => void;
  onKeepMine: () => void;
}) {
  const { current } = props;
  return (
    <section class="conflict" role="alert" aria-labelledby="conflict-heading">
      <h2 id="conflict-heading">Version conflict</h2>
      <p>
        Nothing was saved: you edited version {props.expected}, but the record is now at version{' '}
        {current.version} (changed by {displayValue(current.updated_by)} at {displayValue(current.updated_at)}
        ).
      </p>
      <div class="table-wrap">
        <table>
          <caption>Current values and your edits</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Current value</th>
              <th scope="col">Your value</th>
            </tr>
          </thead>
          <tbody>
            {props.fields.map((field) => {
              const now = displayValue(current[field.name]);
              const mine = props.mine[field.name] ?? '';
              const differs = field.type !== 'json' && now !== mine;
              return (
                <tr key={field.name} class={differs ? 'differs' : undefined}>
                  <th scope="row">{field.name}</th>
                  <td>{now}</td>
                  <td>{mine}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <div class="actions">
        <button type="button" onClick={props.onTakeCurrent}>
          Discard my edits and load the current values
        </button>
        <button type="button" onClick={props.onKeepMine}>
          Keep my edits to save over version {current.version}
        </button>
      </div>
    </section>
  );
}
