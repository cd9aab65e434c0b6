import type { Pool } from '../../platform/database/pool.js';
import type { AccessControl } from '../access/access-control.js';
import { auditVisibilitySql } from '../access/audit-visibility.js';
import { maskChange } from '../access/channel-masks.js';
import type { RecordReader } from '../access/record-reader.js';
import { RecordsErrors } from '../errors.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import type { SchemaRegistry } from '../schemas/schema-registry.js';
import type { Identity } from '../types.js';
import type { AnchorStore } from './anchor-store.js';
import { presentAuditEvent } from './present.js';
import { listAudit, type AuditFilter } from './audit-repository.js';
import type { ChainVerification } from './verify-chain.js';
import { verifyRecord } from './verify-record.js';
import type { ArchiveFiles } from '../archive/files/archive-files.js';

/** What the audit service needs. */
export interface AuditServiceDependencies {
  /** The owner's pool: verify hashes every history row of a record, past row-level security. */
  ownerPool: Pool;
  registry: SchemaRegistry;
  access: AccessControl;
  reader: RecordReader;
  /** The signed anchors of the chains; undefined when no signing key is configured. */
  anchors?: AnchorStore | undefined;
  /** The archive's files (records archived to files keep their events there). */
  files?: ArchiveFiles;
}

/** The role that may read the audit log of every schema at once. */
export const auditorRole = 'auditor';

/** A page of the audit log as the caller may see it. */
export interface AuditPage {
  events: Record<string, unknown>[];
  pagination: { limit: number; cursor: string | null; has_more: boolean };
}

/**
 * The audit log of records: verifying one record's chain and listing events. Reading a schema's
 * audit needs read access to it; reading across schemas needs the `auditor` role.
 */
export class AuditService {
  constructor(private readonly deps: AuditServiceDependencies) {}

  /** The schema at `path`, when the caller may read it (404 SCHEMA_NOT_FOUND, 403 RBAC_DENIED). */
  readable(identity: Identity, path: string): CompiledSchema {
    const schema = this.deps.registry.resolve(path);
    this.deps.access.authorize(identity, schema, 'read');
    return schema;
  }

  /**
   * Checks the record's chain, the history rows it covers and, with a signing key, the record's
   * newest signed anchor; 404 when nothing is known of the record.
   */
  async verify(identity: Identity, schema: CompiledSchema, id: string): Promise<ChainVerification> {
    const { ownerPool, reader, anchors } = this.deps;
    const { files } = this.deps;
    const result = await verifyRecord(
      { ownerPool, reader, anchors, ...(files ? { files } : {}) },
      identity,
      schema,
      id.toLowerCase(),
    );
    if (result === undefined) throw RecordsErrors.entityNotFound(schema.path, id);
    return result;
  }

  /**
   * The paths of the schemas a listing covers: those named, else (for an auditor, 403 for anyone
   * else) every schema the caller may read (layer 1), as org search does.
   */
  listedSchemas(identity: Identity, named: string[] | undefined): string[] {
    if (named) return named;
    if (!identity.roles.includes(auditorRole))
      throw RecordsErrors.rbacDenied('read the audit log of', 'every schema (name one with schema)');
    return this.deps.registry
      .all()
      .filter((schema) => {
        try {
          this.deps.access.authorize(identity, schema, 'read');
          return true;
        } catch {
          return false;
        }
      })
      .map((schema) => schema.path);
  }

  /**
   * A page of audit events of `filter.schemas`, newest first, through layers 4, 7 (the events of
   * records the caller may not see are not listed) and 2 (those a record read rule denies are left
   * out), each event masked (layer 5).
   */
  async list(
    identity: Identity,
    filter: AuditFilter & { schemas: string[] },
    limit: number,
  ): Promise<AuditPage> {
    const { registry, access, reader } = this.deps;
    const schemas = filter.schemas.map((path) => registry.resolve(path));
    filter.visible = auditVisibilitySql(access, identity, schemas);
    const entityId = filter.entityId;
    const [only] = schemas;
    const { rows, denied } = await reader.read(identity, schemas, async (db) => {
      // One record named: hidden from the caller is 404, as for GET.
      if (entityId !== undefined && only !== undefined && schemas.length === 1) {
        await reader.requireReadable(db, identity, only, entityId);
        // A record archived to files keeps its events there (read as the owner, after the check).
        const { files, ownerPool } = this.deps;
        if (files) filter.archivedRows = await files.rowsOf(ownerPool, only.path, entityId, 'audit');
      }
      const listed = await listAudit(db, filter, limit);
      // Events of records the caller's record read rules deny are left out (an audit page spans
      // many records; one of them should not fail it). The cursor still follows the listed events.
      const hidden = new Set<string>();
      for (const schema of schemas) {
        const ids = new Set(
          listed.filter((row) => row.schema_path === schema.path).map((row) => row.entity_id),
        );
        for (const id of await reader.deniedRecords(db, identity, schema, [...ids]))
          hidden.add(`${schema.path}|${id}`);
      }
      return { rows: listed, denied: hidden };
    });
    const schemaOf = new Map(schemas.map((schema) => [schema.path, schema]));
    const hasMore = rows.length > limit;
    const listedPage = hasMore ? rows.slice(0, limit) : rows;
    const last = listedPage[listedPage.length - 1];
    const pagination = { limit, cursor: hasMore && last ? `e${last.event_id}` : null, has_more: hasMore };
    const page = listedPage.filter((row) => !denied.has(`${row.schema_path}|${row.entity_id}`));
    return {
      events: page.map((row) => maskChange(identity, schemaOf.get(row.schema_path), presentAuditEvent(row))),
      pagination,
    };
  }
}
