import { FormEvent, useState } from 'react';
import { gql } from '../api';
import { useAccess, useReloadMe } from '../me';
import { Link, seg } from '../router';
import { ErrorBox, Field, Loaded, Notice, Page, Section, Table, useAction, useLoad } from '../ui';
import './tenants.css';

/** A tenant as the console shows it (the GraphQL `Tenant` type). */
export interface Tenant {
  id: string;
  name: string;
  organizationId: string;
  friendlyName?: string | null;
  tag?: string | null;
  showcase: boolean;
  eventsEnabled: boolean;
  url: string;
  etag: string;
  createdAt: string;
  updatedAt: string;
}

export const TENANT_FIELDS = 'id name organizationId friendlyName tag showcase eventsEnabled url etag createdAt updatedAt';

/**
 * A DNS label, as the server checks it (the `pattern` attribute; the server's refusal is shown too). Written for the
 * `v` flag browsers compile `pattern` with: the dash in the class is escaped.
 */
export const NAME_PATTERN = '[a-z0-9]([a-z0-9\\-]{0,61}[a-z0-9])?';
export const NAME_HINT = 'Lowercase letters, digits and dashes inside, at most 63 characters (e.g. plant-7). It becomes part of the URL and cannot change later.';

/** The showcase and change-event badges of a tenant. */
export function TenantBadges({ tenant }: { tenant: Pick<Tenant, 'showcase' | 'eventsEnabled'> }) {
  return (
    <span className="tenant-badges">
      {tenant.showcase && <span className="badge warn">Showcase: open without sign-in</span>}
      {tenant.eventsEnabled && <span className="badge ok">Change events on</span>}
      {!tenant.showcase && !tenant.eventsEnabled && <span className="hint">—</span>}
    </span>
  );
}

const LIST = `query Tenants($organizationId: ID!, $cursor: String) {
  tenants(organizationId: $organizationId, cursor: $cursor, limit: 100) { result { ${TENANT_FIELDS} } pagingMetadata { cursor } }
}`;

/** The organization's tenants (those the signed-in user holds a role on) and, for its owners, a form to create one. */
export function TenantsPage({ organizationId }: { organizationId: string }) {
  const access = useAccess();
  const admin = access.administers(organizationId);
  const [more, setMore] = useState<{ rows: Tenant[]; cursor?: string | null }>({ rows: [] });
  const first = useLoad(async () => {
    const page = (await gql<{ tenants: { result: Tenant[]; pagingMetadata: { cursor?: string | null } } }>(LIST, { organizationId })).tenants;
    setMore({ rows: [], cursor: page.pagingMetadata.cursor });
    return page.result;
  }, [organizationId]);
  const loadMore = useAction(async () => {
    const page = (await gql<{ tenants: { result: Tenant[]; pagingMetadata: { cursor?: string | null } } }>(LIST, { organizationId, cursor: more.cursor })).tenants;
    setMore((m) => ({ rows: [...m.rows, ...page.result], cursor: page.pagingMetadata.cursor }));
  });
  const organization = access.me.organizations.find((o) => o.id === organizationId);

  return (
    <Page title={`Tenants${organization ? ` of ${organization.name}` : ''}`}>
      <p>
        A tenant is one AAS server of its own: its shells, submodels, concept descriptions, files and registries, at its own URL.
        {admin ? '' : ' You see the tenants you hold a role on.'}
      </p>
      <Section title="Tenants">
        <Loaded state={first}>
          {(rows) => (
            <>
              <Table
                caption="Tenants of the organization"
                rowKey={(t) => t.id}
                empty={admin ? 'No tenant yet. Create the first one below.' : 'You hold no role on a tenant of this organization.'}
                rows={[...rows, ...more.rows]}
                columns={[
                  { label: 'Name', cell: (t) => <Link to={`/org/${organizationId}/tenants/${seg(t.name)}`}>{t.name}</Link> },
                  { label: 'Friendly name', cell: (t) => t.friendlyName || '—' },
                  { label: 'Tag', cell: (t) => t.tag || '—' },
                  { label: 'Mode', cell: (t) => <TenantBadges tenant={t} /> },
                  { label: 'API URL', cell: (t) => <code className="url">{t.url}/api/v3.0</code> },
                ]}
              />
              {more.cursor && (
                <div className="buttons">
                  <button type="button" className="secondary" onClick={() => loadMore.run()} disabled={loadMore.busy}>
                    Show more tenants
                  </button>
                </div>
              )}
              <ErrorBox error={loadMore.error} />
            </>
          )}
        </Loaded>
      </Section>
      {admin && <CreateTenant organizationId={organizationId} onCreated={first.reload} />}
    </Page>
  );
}

function CreateTenant({ organizationId, onCreated }: { organizationId: string; onCreated: () => void }) {
  const reloadMe = useReloadMe();
  const [name, setName] = useState('');
  const [friendlyName, setFriendlyName] = useState('');
  const [tag, setTag] = useState('');
  const [created, setCreated] = useState<Tenant>();
  const create = useAction(async () => {
    setCreated(undefined);
    const input = { name, ...(friendlyName.trim() ? { friendlyName: friendlyName.trim() } : {}), ...(tag.trim() ? { tag: tag.trim() } : {}) };
    const tenant = (
      await gql<{ createTenant: Tenant }>(`mutation CreateTenant($organizationId: ID!, $input: TenantInput!) { createTenant(organizationId: $organizationId, input: $input) { ${TENANT_FIELDS} } }`, {
        organizationId,
        input,
      })
    ).createTenant;
    setCreated(tenant);
    setName('');
    setFriendlyName('');
    setTag('');
    onCreated();
    // The owner's roles now cover the new tenant: who-am-I is read again, so its data pages know the role.
    reloadMe();
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.run();
  };
  return (
    <Section title="Create a tenant">
      <form onSubmit={submit} className="tenant-form">
        <Field label="Name" hint={NAME_HINT}>
          {(p) => <input {...p} type="text" value={name} onChange={(e) => setName(e.target.value)} required pattern={NAME_PATTERN} maxLength={63} autoComplete="off" spellCheck={false} />}
        </Field>
        <Field label="Friendly name" hint="Optional, at most 200 characters: what people call it.">
          {(p) => <input {...p} type="text" value={friendlyName} onChange={(e) => setFriendlyName(e.target.value)} maxLength={200} />}
        </Field>
        <Field label="Tag" hint="Optional, at most 100 characters: e.g. the environment or the cost centre.">
          {(p) => <input {...p} type="text" value={tag} onChange={(e) => setTag(e.target.value)} maxLength={100} />}
        </Field>
        <p className="hint">A new tenant is not in showcase mode and has change events off; change both in its settings.</p>
        <ErrorBox error={create.error} />
        <div className="buttons">
          <button type="submit" disabled={create.busy}>
            Create tenant
          </button>
        </div>
      </form>
      {created && (
        <Notice kind="success">
          Tenant <Link to={`/org/${organizationId}/tenants/${seg(created.name)}`}>{created.name}</Link> created. Its API is at <code className="url">{created.url}/api/v3.0</code>.
        </Notice>
      )}
    </Section>
  );
}
