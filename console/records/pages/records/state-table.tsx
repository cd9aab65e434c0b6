import { displayValue } from '../../schema-description.js';

/** A record state (or any flat object) as a two-column table. */
export function StateTable({ caption, state }: { caption: string; state: Record<string, unknown> }) {
  return (
    <div class="table-wrap">
      <table>
        <caption>{caption}</caption>
        <tbody>
          {Object.entries(state).map(([field, value]) => (
            <tr key={field}>
              <th scope="row">{field}</th>
              <td>{displayValue(value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
