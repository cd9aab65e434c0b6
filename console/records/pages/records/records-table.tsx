import { displayValue, type FieldDescription, type RecordData } from '../../schema-description.js';
import { consoleUrls } from '../../console-urls.js';

/**
 * Records as a table: id (a link to the record), every field, version and last change. A field the
 * caller may not read (a field read rule nulls it) says so in its header and cells.
 */
export function RecordsTable(props: {
  path: string;
  title: string;
  fields: FieldDescription[];
  records: (RecordData & { _text_match?: number })[];
  withScore?: boolean;
}) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{props.title} records</caption>
        <thead>
          <tr>
            <th scope="col">Id</th>
            {props.fields.map((field) => (
              <th scope="col" key={field.name}>
                {field.name}
                {field.readable ? null : <span class="muted"> (hidden from you)</span>}
              </th>
            ))}
            <th scope="col">Version</th>
            <th scope="col">Updated</th>
            {props.withScore ? <th scope="col">Match</th> : null}
          </tr>
        </thead>
        <tbody>
          {props.records.length === 0 ? (
            <tr>
              <td colSpan={props.fields.length + 3}>No records.</td>
            </tr>
          ) : null}
          {props.records.map((record) => (
            <tr key={record.id}>
              <td>
                <a href={consoleUrls.record(props.path, record.id)} aria-label={`Record ${record.id}`}>
                  <code>{record.id.slice(0, 8)}</code>
                </a>
              </td>
              {props.fields.map((field) => (
                <td key={field.name}>
                  {field.readable ? displayValue(record[field.name]) : <span class="muted">hidden</span>}
                </td>
              ))}
              <td>{record.version}</td>
              <td>{displayValue(record.updated_at)}</td>
              {props.withScore ? <td>{displayValue(record._text_match)}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
