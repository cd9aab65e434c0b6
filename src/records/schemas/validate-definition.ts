import { re2PatternProblem } from '../../lib/re2/re2-pattern.js';
import { validateAccessSection } from '../access/validate-access.js';
import { validateArchiveSpec } from '../archive/archive-spec.js';
import {
  fieldTypes,
  systemFields,
  type FieldDefinition,
  type FieldType,
  type SchemaDefinition,
} from '../types.js';
import {
  fieldNamePattern,
  fitsIdentifier,
  pgSchemaName,
  pgTableName,
  segmentPattern,
  versionPattern,
} from './identifiers.js';
import { validateIndexes } from './index-spec.js';

/** One reason a document was refused, at a path inside it. */
export interface DocumentProblem {
  path: string;
  reason: string;
}

/** Outcome of validating a SchemaDefinition document. */
export type DefinitionResult =
  { ok: true; definition: SchemaDefinition } | { ok: false; problems: DocumentProblem[] };

const fieldKeys = new Set([
  'name',
  'type',
  'required',
  'unique',
  'default',
  'enum',
  'min',
  'max',
  'minLength',
  'maxLength',
  'pattern',
  'searchable',
  'filterable',
  'sortable',
  'description',
  'references',
]);
const maxFields = 200;
const schemaPathPattern = /^(?:[a-z][a-z0-9]*(?:-[a-z0-9]+)*\/){4}v[1-9][0-9]{0,3}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Validates `spec` of a `kind: SchemaDefinition` document; every problem is listed. */
export function validateSchemaDefinition(spec: unknown): DefinitionResult {
  const problems: DocumentProblem[] = [];
  const problem = (path: string, reason: string) => problems.push({ path, reason });
  if (!isRecord(spec)) return { ok: false, problems: [{ path: 'spec', reason: 'must be an object' }] };

  const segment = (key: 'org' | 'app' | 'domain' | 'object'): string => {
    const value = spec[key];
    if (typeof value !== 'string' || !segmentPattern.test(value) || value.length > 40) {
      problem(`spec.${key}`, 'must be lowercase letters and digits joined by single hyphens (at most 40)');
      return '';
    }
    return value;
  };
  const org = segment('org');
  const app = segment('app');
  const domain = segment('domain');
  const object = segment('object');
  const version = typeof spec.version === 'string' ? spec.version : '';
  if (!versionPattern.test(version)) problem('spec.version', 'must look like v1, v2, …');
  if (problems.length === 0) {
    if (!fitsIdentifier(pgSchemaName(org))) problem('spec.org', 'is too long for a Postgres schema name');
    if (!fitsIdentifier(pgTableName(app, domain, object, version)))
      problem('spec', 'app, domain, object and version together are too long for a table name (63)');
  }

  const text = (key: string, fallback: string): string => {
    const value = spec[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'string') problem(`spec.${key}`, 'must be a string');
    return typeof value === 'string' ? value : fallback;
  };
  const displayName = text('displayName', object);
  const description = text('description', '');
  const timeMachine = spec.timeMachine ?? false;
  if (typeof timeMachine !== 'boolean') problem('spec.timeMachine', 'must be a boolean');
  const searchTier = spec.searchTier ?? 1;
  if (searchTier !== 1 && searchTier !== 2 && searchTier !== 3)
    problem('spec.searchTier', 'must be 1, 2 or 3');

  const fields: FieldDefinition[] = [];
  if (!Array.isArray(spec.fields) || spec.fields.length === 0) {
    problem('spec.fields', 'must be a non-empty list');
  } else if (spec.fields.length > maxFields) {
    problem('spec.fields', `must have at most ${maxFields} fields`);
  } else {
    const seen = new Set<string>();
    spec.fields.forEach((raw: unknown, index) => {
      const field = validateField(raw, `spec.fields[${index}]`, problem);
      if (!field) return;
      if (seen.has(field.name)) problem(`spec.fields[${index}].name`, `duplicates field ${field.name}`);
      seen.add(field.name);
      fields.push(field);
    });
  }

  const access = validateAccessSection(spec.access, fields, problem);
  const indexes = validateIndexes(spec.indexes, fields, problem);

  if (problems.length > 0) return { ok: false, problems };
  const definition: SchemaDefinition = {
    path: `${org}/${app}/${domain}/${object}/${version}`,
    org,
    app,
    domain,
    object,
    version,
    displayName,
    description,
    timeMachine: timeMachine as boolean,
    searchTier: searchTier as number,
    fields,
    access,
    ...(indexes.length > 0 ? { indexes } : {}),
  };
  if (spec.archive !== undefined) {
    const archive = validateArchiveSpec(spec.archive, definition);
    if ('problems' in archive) return { ok: false, problems: archive.problems };
    definition.archive = archive.spec;
  }
  return { ok: true, definition };
}

function validateField(
  raw: unknown,
  at: string,
  problem: (path: string, reason: string) => void,
): FieldDefinition | undefined {
  if (!isRecord(raw)) {
    problem(at, 'must be an object');
    return undefined;
  }
  const before = { count: 0 };
  const fail = (path: string, reason: string) => {
    before.count += 1;
    problem(`${at}.${path}`, reason);
  };
  for (const key of Object.keys(raw)) if (!fieldKeys.has(key)) fail(key, 'is not a field property');
  const name = raw.name;
  if (typeof name !== 'string' || !fieldNamePattern.test(name)) {
    fail('name', 'must match ^[a-z][a-z0-9_]{0,62}$');
  } else if ((systemFields as readonly string[]).includes(name)) {
    fail('name', `${name} is a system field`);
  }
  const type = raw.type;
  if (typeof type !== 'string' || !fieldTypes.includes(type as FieldType)) {
    fail('type', `must be one of ${fieldTypes.join(', ')}`);
  }
  const flag = (key: string): boolean => {
    const value = raw[key] ?? false;
    if (typeof value !== 'boolean') fail(key, 'must be a boolean');
    return value === true;
  };
  const optionalNumber = (key: string, integer: boolean): number | undefined => {
    const value = raw[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
      fail(key, integer ? 'must be an integer' : 'must be a number');
      return undefined;
    }
    return value;
  };
  const field: FieldDefinition = {
    name: name as string,
    type: type as FieldType,
    required: flag('required'),
    unique: flag('unique'),
    searchable: flag('searchable'),
    filterable: flag('filterable'),
    sortable: flag('sortable'),
  };
  const min = optionalNumber('min', false);
  const max = optionalNumber('max', false);
  const minLength = optionalNumber('minLength', true);
  const maxLength = optionalNumber('maxLength', true);
  if (min !== undefined) field.min = min;
  if (max !== undefined) field.max = max;
  if (minLength !== undefined) field.minLength = minLength;
  if (maxLength !== undefined) field.maxLength = maxLength;
  if ((min !== undefined || max !== undefined) && type !== 'integer' && type !== 'number')
    fail('min', 'min and max apply to integer and number fields');
  if ((minLength !== undefined || maxLength !== undefined) && type !== 'string')
    fail('minLength', 'minLength and maxLength apply to string fields');
  if (min !== undefined && max !== undefined && min > max) fail('min', 'is greater than max');
  if (raw.pattern !== undefined) {
    if (type !== 'string' || typeof raw.pattern !== 'string')
      fail('pattern', 'applies to string fields only');
    else {
      const problem = re2PatternProblem(raw.pattern);
      if (problem === null) field.pattern = raw.pattern;
      else fail('pattern', `is not a valid RE2 regular expression (${problem})`);
    }
  }
  if (type === 'enum') {
    const values = raw.enum;
    if (
      !Array.isArray(values) ||
      values.length === 0 ||
      !values.every((value) => typeof value === 'string' && value.length > 0 && value.length <= 200)
    )
      fail('enum', 'an enum field needs a non-empty list of strings');
    else field.enum = values as string[];
  } else if (raw.enum !== undefined) fail('enum', 'applies to enum fields only');
  if (raw.references !== undefined) {
    if (type !== 'uuid' || typeof raw.references !== 'string' || !schemaPathPattern.test(raw.references))
      fail('references', 'applies to uuid fields and names a schema path (org/app/domain/object/version)');
    else field.references = raw.references;
  }
  if (type === 'json' && (field.unique || field.sortable))
    fail('type', 'json fields cannot be unique or sortable');
  if (raw.default !== undefined && before.count === 0) {
    const reason = defaultProblem(field, raw.default);
    if (reason) fail('default', reason);
    else field.default = raw.default;
  }
  return before.count === 0 ? field : undefined;
}

function defaultProblem(field: FieldDefinition, value: unknown): string | undefined {
  switch (field.type) {
    case 'string':
    case 'timestamp':
    case 'date':
    case 'uuid':
      return typeof value === 'string' ? undefined : 'must be a string';
    case 'enum':
      return typeof value === 'string' && field.enum?.includes(value)
        ? undefined
        : 'must be one of the enum values';
    case 'integer':
      return Number.isInteger(value) ? undefined : 'must be an integer';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be a boolean';
    case 'json':
      return undefined;
  }
}
