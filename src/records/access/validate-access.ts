import type {
  AbacRule,
  AccessSection,
  FieldAccessRule,
  FieldDefinition,
  Operation,
  RowFilterRule,
} from '../types.js';
import { celProblem } from './cel-rules.js';

const operations: Operation[] = ['create', 'read', 'update', 'delete'];
const rolePattern = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;
const maxRules = 100;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Why a row-filter condition cannot be folded into our statements, or undefined. The condition is
 * SQL written by the schema's author (trusted like a migration); Postgres checks it for real when
 * the RLS policy is created at apply time. Here we refuse what would break out of one
 * parenthesised boolean expression: statement separators, comments, placeholders, unbalanced
 * parentheses.
 */
export function rowFilterProblem(condition: string): string | undefined {
  if (condition.trim() === '' || condition.length > 2000) return 'must be 1 to 2000 characters';
  // Ignore the inside of string literals.
  const outside = condition.replace(/'(?:[^']|'')*'/g, "''");
  if (/'/.test(outside.replace(/''/g, ''))) return 'has an unterminated string literal';
  if (/;|--|\/\*|\$\d|\$\$/.test(outside))
    return 'may not contain ;, comments, $n placeholders or dollar quotes';
  let depth = 0;
  for (const char of outside) {
    depth += char === '(' ? 1 : char === ')' ? -1 : 0;
    if (depth < 0) return 'has unbalanced parentheses';
  }
  return depth === 0 ? undefined : 'has unbalanced parentheses';
}

/**
 * Validates `spec.access`: `roles` (operation → role list), `abac` (CEL conditions, compiled here so
 * a bad rule is refused at apply time), `rowFilter` (SQL over the session settings) and
 * `fieldAccess` (read and write role lists of the schema's own fields).
 */
export function validateAccessSection(
  raw: unknown,
  fields: FieldDefinition[],
  problem: (path: string, reason: string) => void,
): AccessSection {
  const access: AccessSection = { abac: [], rowFilter: [], fieldAccess: [] };
  if (raw === undefined) return access;
  if (!isRecord(raw)) {
    problem('spec.access', 'must be an object');
    return access;
  }
  for (const key of Object.keys(raw))
    if (!['roles', 'abac', 'rowFilter', 'fieldAccess'].includes(key))
      problem(`spec.access.${key}`, 'is not an access property (roles, abac, rowFilter, fieldAccess)');
  const roleList = (value: unknown, at: string): string[] | undefined => {
    if (!Array.isArray(value) || !value.every((role) => typeof role === 'string' && rolePattern.test(role))) {
      problem(at, 'must be a list of role names');
      return undefined;
    }
    return value as string[];
  };
  const list = (key: string): Record<string, unknown>[] => {
    const value = raw[key];
    if (value === undefined) return [];
    if (!Array.isArray(value) || value.length > maxRules || !value.every(isRecord)) {
      problem(`spec.access.${key}`, `must be a list of at most ${maxRules} objects`);
      return [];
    }
    return value;
  };
  const text = (item: Record<string, unknown>, key: string, at: string, required = true): string => {
    const value = item[key];
    if (value === undefined && !required) return '';
    if (typeof value !== 'string' || value.length > 2000) problem(`${at}.${key}`, 'must be a string');
    return typeof value === 'string' ? value : '';
  };

  if (raw.roles !== undefined) {
    if (!isRecord(raw.roles)) problem('spec.access.roles', 'must map operations to role lists');
    else {
      const roles: AccessSection['roles'] = {};
      for (const [operation, value] of Object.entries(raw.roles)) {
        if (!operations.includes(operation as Operation))
          problem(`spec.access.roles.${operation}`, `is not one of ${operations.join(', ')}`);
        else {
          const checked = roleList(value, `spec.access.roles.${operation}`);
          if (checked) roles[operation as Operation] = checked;
        }
      }
      access.roles = roles;
    }
  }

  list('abac').forEach((item, index) => {
    const at = `spec.access.abac[${index}]`;
    const operation = item.operation as Operation;
    if (!operations.includes(operation))
      return problem(`${at}.operation`, `must be one of ${operations.join(', ')}`);
    const condition = text(item, 'condition', at);
    const rule: AbacRule = {
      operation,
      condition,
      message: text(item, 'message', at, false) || `Denied by an access rule of ${operation}`,
    };
    const reason = condition === '' ? 'must be a CEL expression' : celProblem(operation, condition);
    if (reason) problem(`${at}.condition`, reason);
    else access.abac.push(rule);
  });

  list('rowFilter').forEach((item, index) => {
    const at = `spec.access.rowFilter[${index}]`;
    const role = item.role;
    if (typeof role !== 'string' || !rolePattern.test(role))
      return problem(`${at}.role`, 'must be a role name');
    const condition = text(item, 'condition', at);
    const reason = rowFilterProblem(condition);
    if (reason) return problem(`${at}.condition`, reason);
    const rule: RowFilterRule = { role, condition, message: text(item, 'message', at, false) };
    access.rowFilter.push(rule);
  });

  const names = new Set(fields.map((field) => field.name));
  const seen = new Set<string>();
  list('fieldAccess').forEach((item, index) => {
    const at = `spec.access.fieldAccess[${index}]`;
    const field = item.field;
    if (typeof field !== 'string' || !names.has(field))
      return problem(`${at}.field`, 'must name a field of the schema (system fields are always readable)');
    if (seen.has(field)) return problem(`${at}.field`, `${field} is listed twice`);
    seen.add(field);
    for (const key of Object.keys(item))
      if (!['field', 'read', 'write'].includes(key))
        problem(`${at}.${key}`, 'is not one of field, read, write');
    const rule: FieldAccessRule = { field };
    if (item.read !== undefined) {
      const read = roleList(item.read, `${at}.read`);
      if (read) rule.read = read;
    }
    if (item.write !== undefined) {
      const write = roleList(item.write, `${at}.write`);
      if (write) rule.write = write;
    }
    access.fieldAccess.push(rule);
  });
  return access;
}
