import { useMemo } from 'preact/hooks';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { Loading } from '../../../shared/components/page.js';
import { useResource } from '../../../shared/use-resource.js';
import { BpmnDiagram, type DiagramDecorations } from '../../components/bpmn-diagram.js';
import { api } from '../../session.js';
import type { HistoryEntry, InstanceDetail } from './model.js';

/** What the diagram marks: tokens (`active`), the path so far (`taken`), incidents as badges. */
export function instanceDecorations(instance: InstanceDetail, history: HistoryEntry[]): DiagramDecorations {
  const active = new Set(instance.active_element_ids);
  const taken = new Set(
    history
      .filter((entry) => !/process/i.test(entry.element_type) && !active.has(entry.element_id))
      .map((entry) => entry.element_id),
  );
  const incidentsByElement = new Map<string, number>();
  for (const incident of instance.incidents)
    incidentsByElement.set(incident.activity_id, (incidentsByElement.get(incident.activity_id) ?? 0) + 1);
  return {
    markers: [
      ...[...taken].map((elementId) => ({ elementId, marker: 'taken' as const })),
      ...[...active].map((elementId) => ({ elementId, marker: 'active' as const })),
    ],
    overlays: [...incidentsByElement].map(([elementId, count]) => ({
      elementId,
      kind: 'incidents' as const,
      text: String(count),
      title: `${count} open ${count === 1 ? 'incident' : 'incidents'} at ${elementId}`,
    })),
  };
}

/** The instance's version drawn with its tokens, path and incidents. */
export function InstanceDiagram(props: { instance: InstanceDetail; history: HistoryEntry[] }) {
  const definition = useResource(`definition/${props.instance.definition_id}`, (signal) =>
    api.get<{ xml: string }>(`/api/v1/deployments/${props.instance.definition_id}`, { signal }),
  );
  const decorations = instanceDecorations(props.instance, props.history);
  // The diagram redraws its decorations when their identity changes: keep it while they are equal.
  const signature = JSON.stringify(decorations);
  const stable = useMemo(() => decorations, [signature]);
  if (definition.error) return <ErrorNotice error={definition.error} />;
  if (!definition.data) return <Loading />;
  return (
    <BpmnDiagram
      xml={definition.data.xml}
      decorations={stable}
      label={`Diagram of ${props.instance.process_key}: tokens at ${
        props.instance.active_element_ids.join(', ') || 'no element'
      }`}
    />
  );
}
