import { FormEvent, ReactNode, useEffect, useState } from 'react';
import { allPages, gql } from '../api';
import { EffectiveRole, RoleList, useAccess, useReloadMe } from '../me';
import { ConfirmDialog, Dialog, DialogButtons, ErrorBox, Field, Loaded, Notice, Page, Section, Table, formatTime, useAction, useLoad } from '../ui';
import { loadServiceAccounts, loadUsers } from './people';
import './roles.css';

/**
 * Role assignments of an organization: organization-wide ones (they hold on every tenant too), those of one
 * tenant, and the effective roles of any user, service account or group with where each comes from.
 */

type PrincipalType = 'user' | 'service-account' | 'group';

const PRINCIPAL_TYPES: { value: PrincipalType; label: string }[] = [
  { value: 'user', label: 'User' },
  { value: 'service-account', label: 'Service account' },
  { value: 'group', label: 'Group' },
];

const KIND: Record<string, string> = { user: 'User', 'service-account': 'Service account', group: 'Group' };

interface Principal {
  type: PrincipalType;
  id: string;
  name: string;
}

interface Tenant {
  id: string;
  name: string;
  friendlyName?: string | null;
}

interface Role {
  name: string;
  description: string;
}

/** Who and what the organization has: the names the screen shows instead of ids, and the roles it offers. */
interface Directory {
  principals: Principal[];
  tenants: Tenant[];
  organizationRoles: Role[];
  cloudRoles: Role[];
}

interface Assignment {
  id: string;
  role: string;
  principalType: string;
  principalId: string;
  createdBy: string;
  createdAt: string;
}

interface PrincipalRoles {
  organizationRoles: EffectiveRole[];
  tenants: { id: string; name: string; roles: EffectiveRole[] }[];
}

const PAGE = 'pagingMetadata { cursor }';

async function loadDirectory(organizationId: string): Promise<Directory> {
  const o = { organizationId };
  const [users, serviceAccounts, groups, tenants, roles] = await Promise.all([
    loadUsers(organizationId),
    loadServiceAccounts(organizationId),
    allPages<{ id: string; name: string }>(
      `query Groups($organizationId: ID!, $cursor: String) { userGroups(organizationId: $organizationId, limit: 250, cursor: $cursor) { result { id name } ${PAGE} } }`,
      'userGroups',
      o,
    ),
    allPages<Tenant>(
      `query Tenants($organizationId: ID!, $cursor: String) { tenants(organizationId: $organizationId, limit: 250, cursor: $cursor) { result { id name friendlyName } ${PAGE} } }`,
      'tenants',
      o,
    ),
    gql<{ organizationRoles: Role[]; cloudRoles: Role[] }>(
      'query Roles($organizationId: ID!) { organizationRoles(organizationId: $organizationId) { name description } cloudRoles(organizationId: $organizationId) { name description } }',
      o,
    ),
  ]);
  return {
    principals: [
      ...users.map((u) => ({ type: 'user' as const, id: u.id, name: u.displayName ? `${u.displayName} (${u.email})` : u.email })),
      ...serviceAccounts.map((s) => ({ type: 'service-account' as const, id: s.id, name: s.name })),
      ...groups.map((g) => ({ type: 'group' as const, id: g.id, name: g.name })),
    ],
    tenants,
    organizationRoles: roles.organizationRoles,
    cloudRoles: roles.cloudRoles,
  };
}

const nameOf = (directory: Directory, type: string, id: string) => directory.principals.find((p) => p.type === type && p.id === id)?.name;

/** `user:{id}`, `service-account:{id}`, `bootstrap`, `federated:…`: who granted it, by name where the organization knows it. */
function grantedBy(directory: Directory, createdBy: string): string {
  if (createdBy === 'bootstrap') return 'set up at the first start';
  const at = createdBy.indexOf(':');
  const type = createdBy.slice(0, at);
  const id = createdBy.slice(at + 1);
  if (type === 'federated') return `${id} (identity provider)`;
  return nameOf(directory, type, id) ?? createdBy;
}

function PrincipalName({ directory, type, id }: { directory: Directory; type: string; id: string }) {
  const name = nameOf(directory, type, id);
  return (
    <span className="roles-principal">
      <span className="badge">{KIND[type] ?? type}</span> {name ?? <code>{id}</code>}
      {!name && <span className="hint"> (no longer in the organization)</span>}
    </span>
  );
}

const ASSIGNMENT = 'id role principalType principalId createdBy createdAt';

export function RolesPage({ organizationId }: { organizationId: string }) {
  const access = useAccess();
  const directory = useLoad(() => loadDirectory(organizationId), [organizationId]);
  // Bumped on every change of an assignment: the effective roles shown are loaded again.
  const [changes, setChanges] = useState(0);
  const changed = () => setChanges((n) => n + 1);
  return (
    <Page title="Role assignments">
      <p className="roles-lead">
        A role assignment gives a user, a service account or a group a role, either organization-wide or on one tenant. A group's roles hold for
        each of its members. Organization-wide roles hold on every tenant of the organization as well.
      </p>
      {!access.administers(organizationId) && <Notice>You can look at the role assignments; only an organization owner changes them.</Notice>}
      <Loaded state={directory}>
        {(d) => (
          <>
            <OrganizationAssignments organizationId={organizationId} directory={d} onChange={changed} />
            <TenantAssignments organizationId={organizationId} directory={d} onChange={changed} />
            <EffectiveRoles organizationId={organizationId} directory={d} changes={changes} />
          </>
        )}
      </Loaded>
    </Page>
  );
}

function OrganizationAssignments({ organizationId, directory, onChange }: { organizationId: string; directory: Directory; onChange: () => void }) {
  const assignments = useLoad(
    () =>
      allPages<Assignment>(
        `query Assignments($organizationId: ID!, $cursor: String) { roleAssignments(organizationId: $organizationId, limit: 250, cursor: $cursor) { result { ${ASSIGNMENT} } ${PAGE} } }`,
        'roleAssignments',
        { organizationId },
      ),
    [organizationId],
  );
  const reloadMe = useReloadMe();
  return (
    <AssignmentList
      title="Organization-wide"
      caption="Organization-wide role assignments"
      empty="No organization-wide role assignment."
      organizationId={organizationId}
      directory={directory}
      state={assignments}
      roles={directory.organizationRoles}
      scopeWords="organization-wide (on every tenant too)"
      create={async (input) => {
        await gql('mutation Assign($organizationId: ID!, $input: RoleAssignmentInput!) { createRoleAssignment(organizationId: $organizationId, input: $input) { id } }', {
          organizationId,
          input,
        });
      }}
      remove={async (assignmentId) => {
        await gql('mutation Revoke($organizationId: ID!, $assignmentId: ID!) { deleteRoleAssignment(organizationId: $organizationId, assignmentId: $assignmentId) }', {
          organizationId,
          assignmentId,
        });
        // An owner may have removed a role of its own (another owner remaining): what the console offers changes.
        reloadMe();
      }}
      onChange={() => {
        assignments.reload();
        onChange();
      }}
    />
  );
}

function TenantAssignments({ organizationId, directory, onChange }: { organizationId: string; directory: Directory; onChange: () => void }) {
  const [tenantId, setTenantId] = useState(directory.tenants[0]?.id ?? '');
  const tenant = directory.tenants.find((t) => t.id === tenantId);
  const assignments = useLoad(
    () =>
      tenantId
        ? allPages<Assignment>(
            `query TenantAssignments($organizationId: ID!, $tenantId: ID!, $cursor: String) { tenantRoleAssignments(organizationId: $organizationId, tenantId: $tenantId, limit: 250, cursor: $cursor) { result { ${ASSIGNMENT} } ${PAGE} } }`,
            'tenantRoleAssignments',
            { organizationId, tenantId },
          )
        : Promise.resolve([]),
    [organizationId, tenantId],
  );
  if (!directory.tenants.length) {
    return (
      <Section title="On one tenant">
        <p className="empty">The organization has no tenant yet.</p>
      </Section>
    );
  }
  return (
    <AssignmentList
      title="On one tenant"
      before={
        <div className="roles-choice">
          <Field label="Tenant" hint="The role assignments of this tenant only; organization-wide roles hold there too.">
            {(p) => (
              <select {...p} value={tenantId} onChange={(e) => setTenantId(e.target.value)}>
                {directory.tenants.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.friendlyName ? `${t.friendlyName} (${t.name})` : t.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
      }
      caption={`Role assignments of tenant ${tenant?.name ?? ''}`}
      empty="No role assignment for this tenant alone."
      organizationId={organizationId}
      directory={directory}
      state={assignments}
      roles={directory.cloudRoles}
      scopeWords={`on tenant ${tenant?.name ?? ''}`}
      create={async (input) => {
        await gql(
          'mutation AssignTenant($organizationId: ID!, $tenantId: ID!, $input: RoleAssignmentInput!) { createTenantRoleAssignment(organizationId: $organizationId, tenantId: $tenantId, input: $input) { id } }',
          { organizationId, tenantId, input },
        );
      }}
      remove={async (assignmentId) => {
        await gql(
          'mutation RevokeTenant($organizationId: ID!, $tenantId: ID!, $assignmentId: ID!) { deleteTenantRoleAssignment(organizationId: $organizationId, tenantId: $tenantId, assignmentId: $assignmentId) }',
          { organizationId, tenantId, assignmentId },
        );
      }}
      onChange={() => {
        assignments.reload();
        onChange();
      }}
    />
  );
}

interface AssignmentInput {
  role: string;
  principalType: string;
  principalId: string;
}

function AssignmentList({
  title,
  before,
  caption,
  empty,
  organizationId,
  directory,
  state,
  roles,
  scopeWords,
  create,
  remove,
  onChange,
}: {
  title: string;
  /** Shown above the list (the tenant choice). */
  before?: ReactNode;
  caption: string;
  empty: string;
  organizationId: string;
  directory: Directory;
  state: { data?: Assignment[]; error?: unknown; loading: boolean };
  roles: Role[];
  scopeWords: string;
  create: (input: AssignmentInput) => Promise<void>;
  remove: (assignmentId: string) => Promise<void>;
  onChange: () => void;
}) {
  const admin = useAccess().administers(organizationId);
  const [assigning, setAssigning] = useState(false);
  const [removing, setRemoving] = useState<Assignment | null>(null);
  const who = (a: Assignment) => nameOf(directory, a.principalType, a.principalId) ?? a.principalId;
  return (
    <Section
      title={title}
      actions={
        admin && (
          <button type="button" onClick={() => setAssigning(true)}>
            Assign a role {scopeWords.startsWith('organization') ? 'organization-wide' : 'on this tenant'}
          </button>
        )
      }
    >
      {before}
      <Loaded state={state}>
        {(rows) => (
          <Table
            caption={caption}
            rowKey={(a) => a.id}
            empty={empty}
            rows={rows}
            columns={[
              { label: 'Principal', cell: (a) => <PrincipalName directory={directory} type={a.principalType} id={a.principalId} /> },
              { label: 'Role', cell: (a) => <strong>{a.role}</strong> },
              { label: 'Granted by', cell: (a) => grantedBy(directory, a.createdBy) },
              { label: 'Since', cell: (a) => formatTime(a.createdAt) },
              ...(admin
                ? [
                    {
                      label: 'Actions',
                      cell: (a: Assignment) => (
                        <button type="button" className="secondary small" onClick={() => setRemoving(a)} aria-label={`Remove ${a.role} of ${who(a)}`}>
                          Remove
                        </button>
                      ),
                    },
                  ]
                : []),
            ]}
          />
        )}
      </Loaded>
      {admin && (
        <AssignDialog
          open={assigning}
          title={`Assign a role ${scopeWords}`}
          directory={directory}
          roles={roles}
          onClose={() => setAssigning(false)}
          onAssign={async (input) => {
            await create(input);
            setAssigning(false);
            onChange();
          }}
        />
      )}
      {admin && (
        <ConfirmDialog
          title="Remove this role assignment?"
          open={removing !== null}
          onClose={() => setRemoving(null)}
          confirmLabel="Remove the role"
          onConfirm={async () => {
            await remove(removing!.id);
            onChange();
          }}
        >
          {removing && (
            <p>
              {KIND[removing.principalType] ?? removing.principalType} <strong>{who(removing)}</strong> loses the role <strong>{removing.role}</strong> {scopeWords}{' '}
              at once{removing.principalType === 'group' ? ', and so does each member of the group (unless another assignment gives it to them)' : ''}.
            </p>
          )}
        </ConfirmDialog>
      )}
    </Section>
  );
}

/** A principal type and a principal of that type, chosen from the organization's lists. */
function PrincipalChoice({
  directory,
  type,
  id,
  onChange,
}: {
  directory: Directory;
  type: PrincipalType;
  id: string;
  onChange: (type: PrincipalType, id: string) => void;
}) {
  const candidates = directory.principals.filter((p) => p.type === type);
  return (
    <>
      <Field label="Kind of principal">
        {(p) => (
          <select
            {...p}
            value={type}
            onChange={(e) => {
              const next = e.target.value as PrincipalType;
              onChange(next, directory.principals.find((c) => c.type === next)?.id ?? '');
            }}
          >
            {PRINCIPAL_TYPES.map((t) => (
              <option key={t.value} value={t.value}>
                {t.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={PRINCIPAL_TYPES.find((t) => t.value === type)!.label} hint={candidates.length ? undefined : `The organization has no ${KIND[type].toLowerCase()} yet.`}>
        {(p) => (
          <select {...p} value={id} onChange={(e) => onChange(type, e.target.value)} disabled={!candidates.length}>
            {candidates.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        )}
      </Field>
    </>
  );
}

function AssignDialog({
  open,
  title,
  directory,
  roles,
  onClose,
  onAssign,
}: {
  open: boolean;
  title: string;
  directory: Directory;
  roles: Role[];
  onClose: () => void;
  onAssign: (input: AssignmentInput) => Promise<void>;
}) {
  const first = (type: PrincipalType) => directory.principals.find((p) => p.type === type)?.id ?? '';
  const [type, setType] = useState<PrincipalType>('user');
  const [id, setId] = useState(first('user'));
  const [role, setRole] = useState(roles[0]?.name ?? '');
  const { run, busy, error, setError } = useAction(() => onAssign({ role, principalType: type, principalId: id }));
  useEffect(() => {
    if (!open) return;
    setType('user');
    setId(first('user'));
    setRole(roles[0]?.name ?? '');
    setError(undefined);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    run();
  };
  return (
    <Dialog title={title} open={open} onClose={onClose}>
      <form onSubmit={submit}>
        <PrincipalChoice
          directory={directory}
          type={type}
          id={id}
          onChange={(t, i) => {
            setType(t);
            setId(i);
          }}
        />
        <Field label="Role" hint={roles.find((r) => r.name === role)?.description}>
          {(p) => (
            <select {...p} value={role} onChange={(e) => setRole(e.target.value)}>
              {roles.map((r) => (
                <option key={r.name} value={r.name}>
                  {r.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <ErrorBox error={error} />
        <DialogButtons label="Assign" disabled={busy || !id} onCancel={onClose} />
      </form>
    </Dialog>
  );
}

const ROLE_SHOWN = 'role source via assignmentId groupId groupName identityProviderId';

function EffectiveRoles({ organizationId, directory, changes }: { organizationId: string; directory: Directory; changes: number }) {
  const [type, setType] = useState<PrincipalType>('user');
  const [id, setId] = useState(directory.principals.find((p) => p.type === 'user')?.id ?? '');
  const roles = useLoad(
    async () =>
      id
        ? (
            await gql<{ principalRoles: PrincipalRoles }>(
              `query PrincipalRoles($organizationId: ID!, $principalType: String!, $principalId: ID!) { principalRoles(organizationId: $organizationId, principalType: $principalType, principalId: $principalId) { organizationRoles { ${ROLE_SHOWN} } tenants { id name roles { ${ROLE_SHOWN} } } } }`,
              { organizationId, principalType: type, principalId: id },
            )
          ).principalRoles
        : null,
    [organizationId, type, id, changes],
  );
  const name = nameOf(directory, type, id);
  return (
    <Section title="Effective roles">
      <p>
        What a principal may do, and why: its own role assignments, those of the groups it is in, and organization-wide roles cascading to every
        tenant.
      </p>
      <div className="roles-choice">
        <PrincipalChoice
          directory={directory}
          type={type}
          id={id}
          onChange={(t, i) => {
            setType(t);
            setId(i);
          }}
        />
      </div>
      <Loaded state={roles}>
        {(held) =>
          held && (
            <div className="roles-effective" aria-live="polite" aria-busy={roles.loading}>
              <h3>Organization-wide roles of {name}</h3>
              {held.organizationRoles.length ? (
                <RoleList roles={held.organizationRoles} />
              ) : (
                <p className="empty">No organization-wide role.</p>
              )}
              <h3>Roles on tenants of {name}</h3>
              <Table
                caption={`Roles of ${name} on tenants`}
                rowKey={(t) => t.id}
                empty="No role on any tenant."
                rows={held.tenants}
                columns={[
                  { label: 'Tenant', cell: (t) => t.name },
                  { label: 'Roles', cell: (t) => <RoleList roles={t.roles} /> },
                ]}
              />
            </div>
          )
        }
      </Loaded>
    </Section>
  );
}

