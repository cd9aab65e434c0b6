import { useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../../shared/components/error-notice.js';
import { Loading, Page } from '../../../shared/components/page.js';
import { query } from '../../../shared/api.js';
import { useResource } from '../../../shared/use-resource.js';
import { DmnDiagram } from '../../components/dmn-diagram.js';
import { api, base, useOrg } from '../../session.js';
import { decisionHref } from './decision-links.js';
import { EvaluateForm } from './evaluate-form.js';
import type { DecisionVersion, DecisionXml, Evaluation } from './types.js';

/**
 * One decision key: its versions, the chosen version (`?version=n`, default latest) drawn by
 * dmn-js, and a form to evaluate it whose matched rules are marked in the table.
 */
export function DecisionPage() {
  const { params, query: search } = useRoute();
  const key = params.key ?? '';
  const pinned = search.version && /^\d+$/.test(search.version) ? Number(search.version) : undefined;
  const org = useOrg();
  const [evaluation, setEvaluation] = useState<Evaluation | undefined>();
  const headers = org ? { 'x-org-id': org.id } : undefined;

  const decision = useResource(`decision/${org?.id}/${key}/${pinned}`, (signal) =>
    org
      ? api.get<DecisionXml>(
          `/api/v1/decisions/${encodeURIComponent(key)}/xml${query({ version: pinned })}`,
          { signal, headers },
        )
      : Promise.reject(new Error('Choose an organisation')),
  );
  const versions = useResource(`decision-versions/${org?.id}`, (signal) =>
    org
      ? api.get<DecisionVersion[]>(`/api/v1/decisions${query({ all_versions: true })}`, { signal, headers })
      : Promise.resolve([]),
  );
  const shown = decision.data;
  const evaluated = evaluation?.decision_key === key && evaluation.version === shown?.version;
  const highlighted = (evaluated ? evaluation.matched_rules : [])
    .filter((rule) => rule.decision_id === key)
    .map((rule) => rule.rule_index);

  return (
    <Page title={shown ? `Decision ${shown.name}` : `Decision ${key}`}>
      <p>
        <a href={`${base}/decisions`}>All decisions</a>
      </p>
      <ErrorNotice error={decision.error} />
      {shown === undefined ? (
        decision.error ? null : (
          <Loading />
        )
      ) : (
        <>
          <p>
            Key <code>{shown.decision_key}</code>, version {shown.version}
          </p>
          <nav aria-label="Versions" class="versions">
            {(versions.data ?? [])
              .filter((version) => version.decision_key === key)
              .map((version) => (
                <a
                  key={version.id}
                  class="badge"
                  href={decisionHref(key, version.version)}
                  aria-current={version.version === shown.version ? 'page' : undefined}
                >
                  v{version.version}
                </a>
              ))}
          </nav>
          <DmnDiagram
            xml={shown.xml}
            decisionKey={shown.decision_key}
            highlightedRules={highlighted}
            label={`DMN of decision ${shown.name}`}
          />
          {org ? (
            <EvaluateForm
              key={shown.id}
              orgId={org.id}
              decisionKey={shown.decision_key}
              version={shown.version}
              onEvaluated={setEvaluation}
            />
          ) : null}
        </>
      )}
    </Page>
  );
}
