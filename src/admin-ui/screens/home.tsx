import { RoleList, useAccess } from '../me';
import { Link, seg } from '../router';
import { Page, Section, Table } from '../ui';

/** Who am I: the signed-in principal, its organizations and tenants, each role with where it comes from. */
export function HomePage() {
  const { me } = useAccess();
  const p = me.principal;
  const kind = p.type === 'user' ? 'User' : p.type === 'service-account' ? 'Service account' : 'Federated identity';
  return (
    <Page title="Who am I">
      <dl className="facts">
        <dt>Name</dt>
        <dd>{p.displayName || '—'}</dd>
        <dt>E-mail</dt>
        <dd>{p.email || '—'}</dd>
        <dt>Kind</dt>
        <dd>{kind}</dd>
        <dt>Subject</dt>
        <dd>
          <code>{p.id}</code>
        </dd>
        <dt>Issuer</dt>
        <dd>
          <code>{p.issuer}</code>
        </dd>
      </dl>
      <Section title="Organizations">
        <Table
          caption="Organizations and your roles there"
          rowKey={(o) => o.id}
          empty="You are in no organization yet. An organization owner can invite you."
          rows={me.organizations}
          columns={[
            { label: 'Organization', cell: (o) => <Link to={`/org/${o.id}/tenants`}>{o.name}</Link> },
            {
              label: 'Roles (organization-wide)',
              cell: (o) =>
                o.roles.length ? (
                  <RoleList roles={o.roles} />
                ) : (
                  'no role yet'
                ),
            },
          ]}
        />
      </Section>
      <Section title="Tenants">
        <Table
          caption="Tenants and your roles there"
          rowKey={(t) => t.id}
          empty="You hold no role on any tenant."
          rows={me.tenants}
          columns={[
            { label: 'Tenant', cell: (t) => <Link to={`/org/${t.organizationId}/tenants/${seg(t.name)}/shells`}>{t.name}</Link> },
            { label: 'Organization', cell: (t) => me.organizations.find((o) => o.id === t.organizationId)?.name ?? t.organizationId },
            {
              label: 'Roles',
              cell: (t) => (
                <RoleList roles={t.roles} />
              ),
            },
            { label: 'API', cell: (t) => <code>{t.url}/api/v3.0</code> },
          ]}
        />
      </Section>
    </Page>
  );
}
