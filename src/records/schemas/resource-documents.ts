import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { DocumentProblem } from './validate-definition.js';

/** The API group version of every declarative resource. */
export const resourceApiVersion = 'weft.dev/v1';
/** Kinds of resource this service stores. */
export const resourceKinds = ['SchemaDefinition', 'AuthStrategy', 'RoleBinding'] as const;

/** One YAML document, with where it came from. */
export interface ResourceDocument {
  /** File and document index, e.g. `orders.yaml#2`. */
  source: string;
  kind: string;
  name: string;
  document: Record<string, unknown>;
}

/** A document refused before it reached the database. */
export interface RejectedDocument extends DocumentProblem {
  source: string;
}

const maxFileBytes = 1024 * 1024;

/** Parses the YAML (or JSON) text of one file into documents, refusing malformed ones with a reason. */
export function parseResourceText(
  text: string,
  file: string,
): { documents: ResourceDocument[]; rejected: RejectedDocument[] } {
  const documents: ResourceDocument[] = [];
  const rejected: RejectedDocument[] = [];
  const parsed = parseAllDocuments(text);
  const list = Array.isArray(parsed) ? parsed : [parsed];
  list.forEach((yamlDocument, index) => {
    const source = list.length > 1 ? `${file}#${index + 1}` : file;
    if (yamlDocument.errors.length > 0) {
      rejected.push({
        source,
        path: '(document)',
        reason: yamlDocument.errors[0]?.message ?? 'is not valid YAML',
      });
      return;
    }
    const value: unknown = yamlDocument.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) return;
    if (typeof value !== 'object' || Array.isArray(value)) {
      rejected.push({ source, path: '(document)', reason: 'must be a mapping' });
      return;
    }
    const record = value as Record<string, unknown>;
    if (record.apiVersion !== resourceApiVersion) {
      rejected.push({ source, path: 'apiVersion', reason: `must be ${resourceApiVersion}` });
      return;
    }
    if (typeof record.kind !== 'string' || !(resourceKinds as readonly string[]).includes(record.kind)) {
      rejected.push({ source, path: 'kind', reason: `must be one of ${resourceKinds.join(', ')}` });
      return;
    }
    const metadata = record.metadata as { name?: unknown } | undefined;
    const name = typeof metadata?.name === 'string' ? metadata.name : '';
    if (record.kind !== 'SchemaDefinition' && !/^[a-z0-9][a-z0-9.-]{0,252}$/.test(name)) {
      rejected.push({ source, path: 'metadata.name', reason: 'must be a lowercase DNS-style name' });
      return;
    }
    documents.push({ source, kind: record.kind, name, document: record });
  });
  return { documents, rejected };
}

/**
 * Reads every `*.yaml`, `*.yml` and `*.json` file under `directory` (recursively, in name order). A
 * file that cannot be read is a rejection (so the folder is not trusted for pruning); an unreadable
 * folder throws.
 */
export async function readResourceDirectory(
  directory: string,
): Promise<{ documents: ResourceDocument[]; rejected: RejectedDocument[] }> {
  const documents: ResourceDocument[] = [];
  const rejected: RejectedDocument[] = [];
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile() && /\.(ya?ml|json)$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
  for (const file of files) {
    const shown = path.relative(directory, file);
    const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => error);
    if (text instanceof Error) {
      // A file removed since the listing is simply gone; any other failure must stop pruning.
      if (text.code !== 'ENOENT')
        rejected.push({ source: shown, path: '(file)', reason: `cannot be read (${text.code ?? 'error'})` });
      continue;
    }
    if (text.length > maxFileBytes) {
      rejected.push({ source: shown, path: '(file)', reason: 'is larger than 1 MiB' });
      continue;
    }
    const result = parseResourceText(text, shown);
    documents.push(...result.documents);
    rejected.push(...result.rejected);
  }
  return { documents, rejected };
}
