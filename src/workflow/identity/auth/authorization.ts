import { WorkflowErrors } from '../../errors.js';
import type { Identity, OrgRole } from './identity.js';

/** True for a PlatformAdmin, who may do everything everywhere. */
export function isPlatformAdmin(identity: Identity): boolean {
  return identity.globalRoles.includes('PlatformAdmin');
}

/** The roles the caller holds in `orgId` (empty when not a member). */
export function rolesIn(identity: Identity, orgId: string): readonly OrgRole[] {
  return identity.orgs.find((org) => org.id === orgId)?.roles ?? [];
}

/**
 * Throws 403 unless the caller is a PlatformAdmin, an OrgAdmin of `orgId` (who may do everything in
 * the org), or holds one of `allowed` there.
 */
export function requireOrgRole(identity: Identity, orgId: string, allowed: readonly OrgRole[]): void {
  if (isPlatformAdmin(identity)) return;
  const held = rolesIn(identity, orgId);
  if (held.includes('OrgAdmin') || held.some((role) => allowed.includes(role))) return;
  throw WorkflowErrors.forbidden(
    allowed.length > 0
      ? `This action needs one of the roles ${['OrgAdmin', ...allowed].join(', ')} in the organisation`
      : 'This action needs the OrgAdmin role in the organisation',
  );
}

/** Throws 403 unless the caller is a PlatformAdmin. */
export function requirePlatformAdmin(identity: Identity): void {
  if (!isPlatformAdmin(identity)) throw WorkflowErrors.forbidden('This action needs the PlatformAdmin role');
}
