/**
 * The records service's database roles (docs/records/access-control.md#database-roles). The owner
 * is whichever login runs the migrations (`RECORDS_MIGRATION_DATABASE_URL`); it owns every table
 * and runs DDL, the change triggers and the archive and snapshot jobs.
 */

/** The role access-controlled requests switch to: not an owner, not a superuser, no BYPASSRLS. */
export const apiRole = 'weft_records_api';

/**
 * The group role of the login the service serves requests with (`RECORDS_DATABASE_URL` when a
 * separate migration URL owns the tables): least privilege, subject to RLS, may become `apiRole`.
 */
export const appRole = 'weft_records_app';
