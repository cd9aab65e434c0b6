import type { SchemaDefinition } from '../types.js';
import { changeCaptureStatements } from './change-triggers.js';
import { planChange, type ChangePlan } from './plan-change.js';
import { referenceTriggerStatements } from './reference-triggers.js';
import { dropSearchColumnStatements, searchColumnStatements, searchSignature } from './search-columns.js';
import { createStatements } from './table-ddl.js';

/**
 * The whole DDL of a schema version: its table and indexes, then change capture (audit trigger,
 * history table), the reference check and search columns.
 */
export function schemaCreateStatements(definition: SchemaDefinition): string[] {
  return [
    ...createStatements(definition),
    ...changeCaptureStatements(definition),
    ...referenceTriggerStatements(definition),
    ...searchColumnStatements(definition),
  ];
}

/**
 * Plans a change (see planChange) and adds what the time machine and search need: the trigger is
 * always regenerated (its record JSON lists the fields), so is the reference check (it lists the
 * reference fields), the history table appears when
 * `timeMachine` turns on (and is kept when it turns off), and the search columns are rebuilt when
 * the tier or the searchable fields change (that rewrites the table).
 */
export function schemaChangePlan(current: SchemaDefinition, next: SchemaDefinition): ChangePlan {
  const plan = planChange(current, next);
  if (!plan.ok) return plan;
  const search =
    searchSignature(current) === searchSignature(next)
      ? []
      : [...dropSearchColumnStatements(next), ...searchColumnStatements(next)];
  return {
    ...plan,
    statements: [
      ...plan.statements,
      ...changeCaptureStatements(next),
      ...referenceTriggerStatements(next),
      ...search,
    ],
  };
}
