import { base } from '../../session.js';

/** A titled list of process instance ids, each a link to its page; "none" when empty. */
export function InstanceList(props: { title: string; ids: string[] }) {
  return (
    <div>
      <h4>{props.title}</h4>
      {props.ids.length === 0 ? (
        <p class="muted">none</p>
      ) : (
        <ul aria-label={props.title}>
          {props.ids.map((id) => (
            <li key={id}>
              <a href={`${base}/instances/${id}`}>
                <code>{id}</code>
              </a>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
