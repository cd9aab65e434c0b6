import { useMemo } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { Loading, Page } from '../../../shared/components/page.js';
import { useResource } from '../../../shared/use-resource.js';
import { BpmnDiagram, type DiagramDecorations } from '../../components/bpmn-diagram.js';
import { api, base } from '../../session.js';
import { hasDiagramLayout } from './bpmn-layout.js';
import { instancesPath } from './links.js';
import type { DeploymentStatistics, ProcessDefinitionWithXml } from './types.js';

/**
 * One version: its instance counts and its diagram with, on each element, the live tokens and open
 * incidents there. Clicking an element (or its row) opens the instances waiting there.
 */
export function VersionPage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const id = params.id ?? '';
  const definition = useResource(`deployment/${id}`, (signal) =>
    api.get<ProcessDefinitionWithXml>(`/api/v1/deployments/${id}`, { signal }),
  );
  const statistics = useResource(
    `deployment-statistics/${id}`,
    (signal) => api.get<DeploymentStatistics>(`/api/v1/deployments/${id}/statistics`, { signal }),
    { refreshMs: 5000 },
  );
  const xml = definition.data?.xml;
  const drawable = useMemo(() => (xml === undefined ? false : hasDiagramLayout(xml)), [xml]);
  const decorations = useMemo<DiagramDecorations>(() => {
    const elements = statistics.data?.elements ?? [];
    return {
      markers: elements
        .filter((element) => element.active > 0)
        .map((element) => ({ elementId: element.element_id, marker: 'active' as const })),
      overlays: elements.flatMap((element) => [
        ...(element.active > 0
          ? [
              {
                elementId: element.element_id,
                text: String(element.active),
                kind: 'tokens' as const,
                title: `${element.active} active token${element.active === 1 ? '' : 's'} at ${element.element_id}`,
              },
            ]
          : []),
        ...(element.incidents > 0
          ? [
              {
                elementId: element.element_id,
                text: String(element.incidents),
                kind: 'incidents' as const,
                title: `${element.incidents} open incident${element.incidents === 1 ? '' : 's'} at ${element.element_id}`,
              },
            ]
          : []),
      ]),
    };
  }, [statistics.data]);

  const version = definition.data;
  const title = version
    ? `${version.name || version.process_key} ${version.draft ? 'draft' : `v${version.version}`}`
    : 'Process version';
  const counts = statistics.data?.instances;
  return (
    <Page title={title} actions={<a href={`${base}/processes`}>All processes</a>}>
      <ErrorNotice error={definition.error ?? statistics.error} />
      {version === undefined ? (
        definition.error ? null : (
          <Loading />
        )
      ) : (
        <>
          <p class="muted">
            <code>{version.process_key}</code> · deployed {new Date(version.deployed_at).toLocaleString()}
            {version.disabled ? ' · disabled' : ''}
            {version.suspended ? ' · suspended' : ''} ·{' '}
            <a href={instancesPath(version.id)}>Instances of this version</a>
          </p>
          {counts ? (
            <dl class="version-counts">
              <div>
                <dt>Running</dt>
                <dd>{counts.running}</dd>
              </div>
              <div>
                <dt>Incidents</dt>
                <dd>{counts.incident}</dd>
              </div>
              <div>
                <dt>Completed</dt>
                <dd>{counts.completed}</dd>
              </div>
              <div>
                <dt>Cancelled</dt>
                <dd>{counts.cancelled + counts.terminated}</dd>
              </div>
            </dl>
          ) : null}
          {drawable ? (
            <BpmnDiagram
              xml={version.xml}
              decorations={decorations}
              label={`Diagram of ${title} with active tokens and open incidents per element`}
              onElementClick={(elementId) => route(instancesPath(version.id, elementId))}
            />
          ) : (
            <p class="muted">This model has no diagram layout; its elements are listed below.</p>
          )}
          <h2>Elements with tokens or incidents</h2>
          {statistics.data === undefined ? (
            <Loading />
          ) : statistics.data.elements.length === 0 ? (
            <p class="muted">No open instance waits anywhere in this version.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Element</th>
                    <th scope="col">Active tokens</th>
                    <th scope="col">Open incidents</th>
                  </tr>
                </thead>
                <tbody>
                  {statistics.data.elements.map((element) => (
                    <tr key={element.element_id}>
                      <th scope="row">
                        <a href={instancesPath(version.id, element.element_id)}>{element.element_id}</a>
                      </th>
                      <td>{element.active}</td>
                      <td>{element.incidents}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </Page>
  );
}
