import { FormEvent, useState } from 'react';
import { ApiError, gql } from '../api';
import { config } from '../config';
import { useAccess } from '../me';
import { ChangedField, ConfirmDialog, ConflictPanel, Copyable, Dialog, DialogButtons, ErrorBox, Field, Loaded, Page, Section, Table, useAction, useLoad } from '../ui';
import './identity-providers.css';

/**
 * Identity providers (federation): the external issuers whose tokens the organization trusts, with the roles
 * their tokens carry. One may also offer a sign-in to this console (its public client for the console).
 */
export interface IdentityProvider {
  id: string;
  issuer: string;
  audience: string;
  jwksUri: string;
  rolesClaim: string;
  tenantId: string | null;
  signInClientId: string | null;
  signInName: string | null;
  etag: string;
}

interface Tenant {
  id: string;
  name: string;
}

const FIELDS = 'id issuer audience jwksUri rolesClaim tenantId signInClientId signInName etag';
const PAGE = 250;

async function loadAll<T>(query: string, root: string, variables: Record<string, unknown>): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | null = null;
  do {
    const data: Record<string, { result: T[]; pagingMetadata: { cursor?: string | null } }> = await gql(query, { ...variables, limit: PAGE, cursor });
    rows.push(...data[root].result);
    cursor = data[root].pagingMetadata.cursor ?? null;
  } while (cursor);
  return rows;
}

const loadProviders = (organizationId: string) =>
  loadAll<IdentityProvider>(
    `query IdentityProviders($organizationId: ID!, $limit: Int!, $cursor: String) { identityProviders(organizationId: $organizationId, limit: $limit, cursor: $cursor) { result { ${FIELDS} } pagingMetadata { cursor } } }`,
    'identityProviders',
    { organizationId },
  );

const loadTenants = (organizationId: string) =>
  loadAll<Tenant>(
    `query Tenants($organizationId: ID!, $limit: Int!, $cursor: String) { tenants(organizationId: $organizationId, limit: $limit, cursor: $cursor) { result { id name } pagingMetadata { cursor } } }`,
    'tenants',
    { organizationId },
  );

const hostOf = (issuer: string) => {
  try {
    return new URL(issuer).host;
  } catch {
    return issuer;
  }
};

/** The form's values: text as typed; blank optional fields are sent as null. */
interface Form {
  issuer: string;
  jwksUri: string;
  audience: string;
  rolesClaim: string;
  tenantId: string;
  signInClientId: string;
  signInName: string;
}

const EMPTY: Form = { issuer: '', jwksUri: '', audience: '', rolesClaim: 'roles', tenantId: '', signInClientId: '', signInName: '' };

const formOf = (p: IdentityProvider): Form => ({
  issuer: p.issuer,
  jwksUri: p.jwksUri,
  audience: p.audience,
  rolesClaim: p.rolesClaim,
  tenantId: p.tenantId ?? '',
  signInClientId: p.signInClientId ?? '',
  signInName: p.signInName ?? '',
});

const inputOf = (f: Form) => ({
  issuer: f.issuer.trim(),
  jwksUri: f.jwksUri.trim(),
  audience: f.audience,
  rolesClaim: f.rolesClaim.trim() || null,
  tenantId: f.tenantId || null,
  signInClientId: f.signInClientId.trim() || null,
  signInName: f.signInName.trim() || null,
});

export function IdentityProvidersPage({ organizationId }: { organizationId: string }) {
  const access = useAccess();
  const owner = access.administers(organizationId);
  const state = useLoad(async () => {
    const [providers, tenants] = await Promise.all([loadProviders(organizationId), loadTenants(organizationId)]);
    return { providers, tenants };
  }, [organizationId]);
  const [editing, setEditing] = useState<IdentityProvider | 'new' | null>(null);
  const [deleting, setDeleting] = useState<IdentityProvider | null>(null);
  const [done, setDone] = useState<string>();

  const tenantName = (tenants: Tenant[], id: string | null) => (id ? (tenants.find((t) => t.id === id)?.name ?? id) : null);

  return (
    <Page
      title="Identity providers"
      actions={
        owner && (
          <button type="button" onClick={() => setEditing('new')}>
            Add identity provider
          </button>
        )
      }
    >
      <p className="idp-lead">
        An identity provider is an external sign-in service (Microsoft Entra ID, Keycloak, Okta, …) whose access tokens this
        organization trusts. Its users need no account here: the roles in their token (reader, contributor,
        organization-owner) hold in this organization, or on one tenant only. Changes take effect at once.
      </p>
      {done && (
        <div className="alert success" role="status">
          <p>{done}</p>
        </div>
      )}
      <Loaded state={state}>
        {({ providers, tenants }) => (
          <>
            <Table
              caption="Trusted identity providers"
              rowKey={(p) => p.id}
              empty="This organization trusts no identity provider yet: only accounts of this server sign in."
              rows={providers}
              columns={[
                { label: 'Issuer', cell: (p) => <code>{p.issuer}</code> },
                { label: 'Audience', cell: (p) => <code>{p.audience}</code> },
                { label: 'Roles claim', cell: (p) => <code>{p.rolesClaim}</code> },
                { label: 'Grants roles on', cell: (p) => (p.tenantId ? `tenant ${tenantName(tenants, p.tenantId)}` : 'the whole organization') },
                {
                  label: 'Console sign-in',
                  cell: (p) =>
                    p.signInClientId ? (
                      <>
                        <span className="badge ok">on</span> “Sign in with {p.signInName || hostOf(p.issuer)}”, client <code>{p.signInClientId}</code>
                      </>
                    ) : (
                      <span className="badge">off</span>
                    ),
                },
                ...(owner
                  ? [
                      {
                        label: 'Actions',
                        cell: (p: IdentityProvider) => (
                          <div className="actions">
                            <button type="button" className="secondary small" onClick={() => setEditing(p)} aria-label={`Edit ${p.issuer}`}>
                              Edit
                            </button>
                            <button type="button" className="danger small" onClick={() => setDeleting(p)} aria-label={`Delete ${p.issuer}`}>
                              Delete
                            </button>
                          </div>
                        ),
                      },
                    ]
                  : []),
              ]}
            />
            <Section title="Signing in to this console with an identity provider">
              <p>
                To let the provider's users sign in here, register a <em>public</em> client for this console at the provider (authorization
                code with PKCE, no secret) with this redirect URI, and enter its client id as <em>Console sign-in client id</em>:
              </p>
              <p>
                <Copyable value={config.login.redirectUri} label="redirect URI" />
              </p>
              <p>Your organization's sign-in page, which offers these providers (give this address to your users):</p>
              <p>
                <Copyable value={`${location.origin}${config.base}/admin?organization=${organizationId}`} label="sign-in page" />
              </p>
              <p className="hint">
                That page is public: anyone who opens it sees the issuer, the client id and the name of this organization's providers with a
                console sign-in, as on any provider's own login page. Nothing secret is stored here. The console's plain address offers the
                built-in sign-in only.
              </p>
            </Section>
            {owner && editing && (
              <ProviderDialog
                organizationId={organizationId}
                provider={editing === 'new' ? null : editing}
                tenants={tenants}
                onClose={() => setEditing(null)}
                onSaved={(saved, created) => {
                  setEditing(null);
                  setDone(`${created ? 'Added' : 'Saved'} the identity provider ${saved.issuer}.`);
                  state.reload();
                }}
              />
            )}
            {owner && (
              <ConfirmDialog
                title="Delete identity provider"
                open={deleting !== null}
                onClose={() => setDeleting(null)}
                confirmLabel="Delete"
                onConfirm={async () => {
                  const p = deleting!;
                  try {
                    await gql(
                      'mutation DeleteIdentityProvider($organizationId: ID!, $identityProviderId: ID!, $ifMatch: String) { deleteIdentityProvider(organizationId: $organizationId, identityProviderId: $identityProviderId, ifMatch: $ifMatch) }',
                      { organizationId, identityProviderId: p.id, ifMatch: p.etag },
                    );
                  } catch (err) {
                    if (err instanceof ApiError && err.isConflict) {
                      state.reload();
                      throw new ApiError('It was changed by someone else since this page loaded, and was not deleted. The list now shows the current version: look at it and delete again if you still mean to.', err.code);
                    }
                    throw err;
                  }
                  setDone(`Deleted the identity provider ${p.issuer}: its tokens are refused from now on.`);
                  state.reload();
                }}
              >
                {deleting && (
                  <>
                    <p>
                      Stop trusting <code>{deleting.issuer}</code> (audience <code>{deleting.audience}</code>)?
                    </p>
                    <p>
                      Its users lose the roles their tokens carried at once
                      {deleting.signInClientId ? ', and the console no longer offers to sign in with it' : ''}.
                    </p>
                  </>
                )}
              </ConfirmDialog>
            )}
          </>
        )}
      </Loaded>
    </Page>
  );
}

const LABELS: Record<keyof Form, string> = {
  issuer: 'Issuer',
  jwksUri: 'JWKS URI',
  audience: 'Audience',
  rolesClaim: 'Roles claim',
  tenantId: 'Grants roles on',
  signInClientId: 'Console sign-in client id',
  signInName: 'Sign-in button name',
};

function ProviderDialog({
  organizationId,
  provider,
  tenants,
  onClose,
  onSaved,
}: {
  organizationId: string;
  provider: IdentityProvider | null;
  tenants: Tenant[];
  onClose: () => void;
  onSaved: (saved: IdentityProvider, created: boolean) => void;
}) {
  const [loaded, setLoaded] = useState<IdentityProvider | null>(provider);
  const [form, setForm] = useState<Form>(provider ? formOf(provider) : EMPTY);
  const [conflict, setConflict] = useState<{ current: IdentityProvider; fields: ChangedField[] } | null>(null);
  const set = (key: keyof Form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [key]: e.target.value }));
  const shown = (key: keyof Form, f: Form) => (key === 'tenantId' ? (f.tenantId ? (tenants.find((t) => t.id === f.tenantId)?.name ?? f.tenantId) : 'the whole organization') : f[key]);

  const save = useAction(async () => {
    setConflict(null);
    if (!loaded) {
      const data = await gql<{ createIdentityProvider: IdentityProvider }>(
        `mutation CreateIdentityProvider($organizationId: ID!, $input: IdentityProviderInput!) { createIdentityProvider(organizationId: $organizationId, input: $input) { ${FIELDS} } }`,
        { organizationId, input: inputOf(form) },
      );
      onSaved(data.createIdentityProvider, true);
      return;
    }
    try {
      const data = await gql<{ replaceIdentityProvider: IdentityProvider }>(
        `mutation ReplaceIdentityProvider($organizationId: ID!, $identityProviderId: ID!, $input: IdentityProviderInput!, $ifMatch: String) { replaceIdentityProvider(organizationId: $organizationId, identityProviderId: $identityProviderId, input: $input, ifMatch: $ifMatch) { ${FIELDS} } }`,
        { organizationId, identityProviderId: loaded.id, input: inputOf(form), ifMatch: loaded.etag },
      );
      onSaved(data.replaceIdentityProvider, false);
    } catch (err) {
      if (!(err instanceof ApiError && err.isConflict)) throw err;
      const { identityProvider: current } = await gql<{ identityProvider: IdentityProvider }>(
        `query IdentityProvider($organizationId: ID!, $identityProviderId: ID!) { identityProvider(organizationId: $organizationId, identityProviderId: $identityProviderId) { ${FIELDS} } }`,
        { organizationId, identityProviderId: loaded.id },
      );
      const before = formOf(loaded);
      const now = formOf(current);
      setConflict({
        current,
        fields: (Object.keys(LABELS) as (keyof Form)[]).map((key) => ({ label: LABELS[key], loaded: shown(key, before), current: shown(key, now), mine: shown(key, form) })),
      });
    }
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.run();
  };

  return (
    <Dialog title={loaded ? 'Edit identity provider' : 'Add identity provider'} open onClose={onClose}>
      <form onSubmit={submit}>
        <Field label={LABELS.issuer} hint="The issuer URL exactly as the provider writes it into its tokens (its iss claim), e.g. https://login.microsoftonline.com/{tenant}/v2.0.">
          {(p) => <input {...p} value={form.issuer} onChange={set('issuer')} inputMode="url" autoComplete="off" spellCheck={false} />}
        </Field>
        <Field label={LABELS.jwksUri} hint="Where the provider publishes its signing keys (jwks_uri in its /.well-known/openid-configuration). Tokens are checked with these keys.">
          {(p) => <input {...p} value={form.jwksUri} onChange={set('jwksUri')} inputMode="url" autoComplete="off" spellCheck={false} />}
        </Field>
        <Field label={LABELS.audience} hint="The token’s aud claim must contain it: the id of the API or application registered for this server at the provider.">
          {(p) => <input {...p} value={form.audience} onChange={set('audience')} autoComplete="off" spellCheck={false} />}
        </Field>
        <Field label={LABELS.rolesClaim} hint="Where in the token the roles are: roles (Microsoft Entra ID), realm_access.roles (Keycloak). Blank: roles. Values that count: reader, contributor, organization-owner.">
          {(p) => <input {...p} value={form.rolesClaim} onChange={set('rolesClaim')} autoComplete="off" spellCheck={false} />}
        </Field>
        <Field label={LABELS.tenantId} hint="The whole organization (every tenant), or one tenant only: then the roles hold on that tenant and not in the organization's management.">
          {(p) => (
            <select {...p} value={form.tenantId} onChange={set('tenantId')}>
              <option value="">The whole organization</option>
              {tenants.map((t) => (
                <option key={t.id} value={t.id}>
                  Tenant {t.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          label={LABELS.signInClientId}
          hint="Optional. The public client registered at the provider for this console: the console's sign-in page then offers to sign in with this provider. Blank: no sign-in here (its tokens are still trusted)."
        >
          {(p) => <input {...p} value={form.signInClientId} onChange={set('signInClientId')} autoComplete="off" spellCheck={false} />}
        </Field>
        <Field label={LABELS.signInName} hint={`Optional. The button reads “Sign in with …” this name. Blank: the issuer's host${form.issuer ? ` (${hostOf(form.issuer.trim())})` : ''}.`}>
          {(p) => <input {...p} value={form.signInName} onChange={set('signInName')} autoComplete="off" />}
        </Field>
        {conflict && (
          <ConflictPanel
            fields={conflict.fields}
            onReload={() => {
              setLoaded(conflict.current);
              setForm(formOf(conflict.current));
              setConflict(null);
            }}
          />
        )}
        <ErrorBox error={save.error} />
        <DialogButtons label={loaded ? 'Save' : 'Add'} disabled={save.busy} onCancel={onClose} />
      </form>
    </Dialog>
  );
}
