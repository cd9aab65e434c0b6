import { useMemo } from 'preact/hooks';
import { BpmnDiagram, type DiagramDecorations } from '../../components/bpmn-diagram.js';
import { hasDiagramLayout } from './bpmn-layout.js';
import type { DeployProblem } from './types.js';

/**
 * What is wrong with a refused model: one row per problem with the element it names, and, when the
 * file can be drawn, the diagram with those elements outlined and a badge carrying the message.
 */
export function DeployProblems(props: { problems: DeployProblem[]; xml: string; fileName: string }) {
  const drawable = useMemo(() => hasDiagramLayout(props.xml), [props.xml]);
  const decorations = useMemo<DiagramDecorations>(() => {
    const located = props.problems.filter((problem) => problem.element_id !== null);
    return {
      markers: located.map((problem) => ({
        elementId: problem.element_id ?? '',
        marker: 'problem' as const,
      })),
      overlays: located.map((problem) => ({
        elementId: problem.element_id ?? '',
        text: '!',
        kind: 'incidents' as const,
        title: `${problem.element_id ?? ''}: ${problem.message}`,
      })),
    };
  }, [props.problems]);
  return (
    <div class="deploy-problems">
      <h3>Problems in {props.fileName}</h3>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Element</th>
              <th scope="col">Problem</th>
            </tr>
          </thead>
          <tbody>
            {props.problems.map((problem, index) => (
              <tr key={index}>
                <td>{problem.element_id ?? <span class="muted">(the document)</span>}</td>
                <td>{problem.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {drawable ? (
        <BpmnDiagram
          xml={props.xml}
          decorations={decorations}
          label={`Diagram of ${props.fileName} with the elements that have problems outlined`}
        />
      ) : null}
    </div>
  );
}

/** The problems of a deployment refusal's details (`{errors: [{element_id, message}]}`), if any. */
export function problemsOf(details: unknown): DeployProblem[] {
  if (details === null || typeof details !== 'object') return [];
  const errors = (details as { errors?: unknown }).errors;
  if (!Array.isArray(errors)) return [];
  return errors.flatMap((entry: unknown) => {
    if (entry === null || typeof entry !== 'object') return [];
    const { element_id, message } = entry as { element_id?: unknown; message?: unknown };
    if (typeof message !== 'string') return [];
    return [{ element_id: typeof element_id === 'string' ? element_id : null, message }];
  });
}
