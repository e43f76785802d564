import { describe, expect, it } from 'vitest';
import { EffectiveRole, accessIn } from '../../src/auth/access';
import { rolesAt } from '../../src/auth/jwt';

const ORG = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';
const T1 = '00000000-0000-4000-8000-0000000000a1';
const T2 = '00000000-0000-4000-8000-0000000000a2';
const role = (r: EffectiveRole['role'], tenantId: string | null = null, organizationId = ORG): EffectiveRole => ({ role: r, organizationId, tenantId, source: 'direct' });

describe('organization access', () => {
  it('cascades organization roles to every tenant, the owner as contributor', () => {
    expect(accessIn([role('organization-owner')], ORG).tenantRole(T1)).toBe('contributor');
    expect(accessIn([role('reader')], ORG).tenantRole(T2)).toBe('reader');
    expect(accessIn([role('reader')], ORG).visibleTenants()).toBe('all');
  });

  it('keeps a tenant role on its tenant', () => {
    const access = accessIn([role('contributor', T1)], ORG);
    expect(access.tenantRole(T1)).toBe('contributor');
    expect(access.tenantRole(T2)).toBeUndefined();
    expect(access.organizationRole).toBeUndefined();
    expect(access.isMember).toBe(true);
    expect(access.visibleTenants()).toEqual(new Set([T1]));
  });

  it('takes the strongest of several roles, and none from another organization', () => {
    const access = accessIn([role('reader'), role('contributor', T1), role('organization-owner', null, OTHER)], ORG);
    expect(access.tenantRole(T1)).toBe('contributor');
    expect(access.tenantRole(T2)).toBe('reader');
    expect(access.has('reader')).toBe(true);
    expect(access.has('contributor')).toBe(false);
    expect(access.has('organization-owner')).toBe(false);
    expect(accessIn([role('organization-owner', null, OTHER)], ORG).isMember).toBe(false);
  });
});

describe('roles in federated tokens', () => {
  it('reads Entra ID and Keycloak claim paths, keeping known role names only', () => {
    expect(rolesAt({ roles: ['reader', 'Admin', 'contributor'] }, 'roles', false)).toEqual(['reader', 'contributor']);
    expect(rolesAt({ realm_access: { roles: ['offline_access', 'contributor'] } }, 'realm_access.roles', false)).toEqual(['contributor']);
    expect(rolesAt({ scp: 'reader contributor' }, 'scp', false)).toEqual(['reader', 'contributor']);
    expect(rolesAt({}, 'realm_access.roles', false)).toEqual([]);
    expect(rolesAt({ realm_access: 'x' }, 'realm_access.roles', false)).toEqual([]);
  });

  it('grants no organization-owner through a tenant trust', () => {
    expect(rolesAt({ roles: ['organization-owner', 'reader'] }, 'roles', true)).toEqual(['reader']);
    expect(rolesAt({ roles: ['organization-owner'] }, 'roles', false)).toEqual(['organization-owner']);
  });
});
