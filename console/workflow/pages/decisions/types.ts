/** A decision version as `GET /api/v1/decisions?all_versions=true` lists it. */
export interface DecisionVersion {
  id: string;
  decision_key: string;
  version: number;
  name: string;
  deployed_at: string;
}

/** `GET /api/v1/decisions/{decision_key}/xml`: a version with the DMN file it came from. */
export interface DecisionXml {
  id: string;
  decision_key: string;
  version: number;
  name: string;
  xml: string;
}

/** A rule that matched in an evaluation (`rule_index` is 0-based). */
export interface MatchedRule {
  decision_id: string;
  decision_name: string;
  rule_id: string | null;
  rule_index: number;
}

/** `POST /api/v1/decisions/{decision_key}/evaluate`. */
export interface Evaluation {
  decision_key: string;
  version: number;
  result: unknown;
  matched_rules: MatchedRule[];
}
