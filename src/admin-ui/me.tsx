import { ReactNode, createContext, useContext } from 'react';
import { gql } from './api';

/** Who is signed in: their organizations and tenants, and each role with where it comes from (the `me` query). */
export interface EffectiveRole {
  role: string;
  source: string;
  via?: string | null;
  assignmentId?: string | null;
  groupId?: string | null;
  groupName?: string | null;
  identityProviderId?: string | null;
}

export interface Me {
  principal: { type: string; id: string; issuer: string; email?: string | null; displayName?: string | null };
  organizations: { id: string; name: string; roles: EffectiveRole[] }[];
  tenants: { id: string; name: string; organizationId: string; url: string; roles: EffectiveRole[] }[];
}

const ROLE = 'role source via assignmentId groupId groupName identityProviderId';
export const ME_QUERY = `query Me { me {
  principal { type id issuer email displayName }
  organizations { id name roles { ${ROLE} } }
  tenants { id name organizationId url roles { ${ROLE} } }
} }`;

export const loadMe = async () => (await gql<{ me: Me }>(ME_QUERY)).me;

const ORDER = ['reader', 'contributor', 'organization-owner'];
const strongest = (roles: EffectiveRole[]) => roles.reduce<string | undefined>((best, r) => (best === undefined || ORDER.indexOf(r.role) > ORDER.indexOf(best) ? r.role : best), undefined);

/** What the signed-in principal may do: the console hides what a role cannot do (the server refuses it anyway). */
export class Access {
  constructor(readonly me: Me) {}

  organizationRole(organizationId: string): string | undefined {
    return strongest(this.me.organizations.find((o) => o.id === organizationId)?.roles ?? []);
  }

  /** Organization-owner: administers users, service accounts, groups, roles, identity providers and tenants. */
  administers(organizationId: string): boolean {
    return this.organizationRole(organizationId) === 'organization-owner';
  }

  tenantRole(tenantName: string): string | undefined {
    return strongest(this.me.tenants.find((t) => t.name === tenantName)?.roles ?? []);
  }

  /** Contributor on the tenant: changes its data. */
  writes(tenantName: string): boolean {
    const role = this.tenantRole(tenantName);
    return role === 'contributor' || role === 'organization-owner';
  }
}

const MeContext = createContext<{ access: Access; reload: () => void } | null>(null);

export function MeProvider({ access, reload, children }: { access: Access; reload: () => void; children: ReactNode }) {
  return <MeContext.Provider value={{ access, reload }}>{children}</MeContext.Provider>;
}

export function useAccess(): Access {
  return useContext(MeContext)!.access;
}

export function useReloadMe(): () => void {
  return useContext(MeContext)!.reload;
}

/** How a role is held, in words. */
export function describeSource(r: EffectiveRole): string {
  const how = (source?: string | null) =>
    source === 'direct'
      ? 'assigned directly'
      : source === 'group'
        ? `through group ${r.groupName ?? r.groupId ?? ''}`.trim()
        : source === 'federation'
          ? 'granted by an identity provider'
          : (source ?? '');
  if (r.source === 'organization') return `organization-wide role, ${how(r.via)}`;
  return how(r.source);
}

/** Roles with where each comes from, as a list: `reader: through group group@auditors`. */
export function RoleList({ roles }: { roles: EffectiveRole[] }) {
  return (
    <ul className="plain">
      {roles.map((r, i) => (
        <li key={i}>
          <strong>{r.role}</strong>: {describeSource(r)}
        </li>
      ))}
    </ul>
  );
}
