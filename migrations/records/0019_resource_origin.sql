-- Where a resource document came from, so that the watched resources folder can be the declared
-- state without touching what was applied another way: 'folder' (the service's RECORDS_RESOURCES_DIR;
-- an AuthStrategy or RoleBinding whose file disappears is pruned), 'apply' (`weft records apply`;
-- never pruned), 'detached' (a SchemaDefinition whose file disappeared: schemas are never pruned,
-- this only says so once), 'unknown' (stored before this migration; claimed by the next folder load
-- if its file is there, never pruned otherwise). The last writer owns a document.
-- No new table or grant: records.resources is read and written by the service login only
-- (weft_records_api has no privilege on it, 0008).
ALTER TABLE records.resources
  ADD COLUMN origin text NOT NULL DEFAULT 'unknown'
    CHECK (origin IN ('folder', 'apply', 'detached', 'unknown'));
ALTER TABLE records.resources ALTER COLUMN origin SET DEFAULT 'apply';
