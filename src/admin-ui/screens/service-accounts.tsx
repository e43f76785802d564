import { useEffect, useRef, useState } from 'react';
import { ApiError, allPages, gql } from '../api';
import { useAccess } from '../me';
import { Link, navigate, seg, useRoute } from '../router';
import { ConfirmDialog, Copyable, Dialog, DialogButtons, ErrorBox, Field, Loaded, Page, Section, Table, formatTime, useAction, useLoad } from '../ui';
import { NameAndDescriptionForm, SERVICE_ACCOUNT_FIELDS, ServiceAccount, loadServiceAccounts } from './people';
import './people.css';

interface Secret {
  id: string;
  hint: string;
  description?: string | null;
  createdAt: string;
  expiresAt?: string | null;
  active: boolean;
}

interface NewSecret {
  clientId: string;
  tokenUrl: string;
  value: string;
  secret: Secret;
  previousSecret?: Secret | null;
}

/** A secret just made, with the name of its account: shown once, then gone. */
interface Revealed extends NewSecret {
  accountName: string;
  rotated: boolean;
}

const SECRET_FIELDS = 'id hint description createdAt expiresAt active';
const NEW_SECRET_FIELDS = `clientId tokenUrl value secret { ${SECRET_FIELDS} } previousSecret { ${SECRET_FIELDS} }`;

const DAY = 86_400;
/** How long a new secret works. */
const VALIDITY: { label: string; seconds: number | null }[] = [
  { label: 'No expiry', seconds: null },
  { label: '30 days', seconds: 30 * DAY },
  { label: '90 days', seconds: 90 * DAY },
  { label: '1 year', seconds: 365 * DAY },
];
/** How long the old secret keeps working after a rotation (the server's default: one day). */
const OVERLAP: { label: string; seconds: number }[] = [
  { label: 'Stops working now', seconds: 0 },
  { label: '1 hour', seconds: 3600 },
  { label: '1 day', seconds: DAY },
  { label: '7 days', seconds: 7 * DAY },
  { label: '30 days', seconds: 30 * DAY },
];

const SECRETS_QUERY = `query Secrets($organizationId: ID!, $serviceAccountId: ID!, $cursor: String) {
  serviceAccountSecrets(organizationId: $organizationId, serviceAccountId: $serviceAccountId, limit: 250, cursor: $cursor) {
    pagingMetadata { cursor } result { ${SECRET_FIELDS} }
  }
}`;

/** The organization's service accounts (machine clients): create, secrets (add, rotate, delete), edit, delete. */
export function ServiceAccountsPage({ organizationId }: { organizationId: string }) {
  const admin = useAccess().administers(organizationId);
  const { search } = useRoute();
  const selectedId = search.get('account');
  const accounts = useLoad(() => loadServiceAccounts(organizationId), [organizationId]);
  const [revealed, setRevealed] = useState<Revealed | null>(null);
  const [creating, setCreating] = useState(false);
  const base = `/org/${seg(organizationId)}/service-accounts`;
  const selected = accounts.data?.find((a) => a.id === selectedId);

  return (
    <Page
      title="Service accounts"
      actions={
        admin && (
          <button type="button" onClick={() => setCreating(true)}>
            New service account
          </button>
        )
      }
    >
      <p>
        A service account is how a program (a script, a gateway, another server) signs in: it gets tokens with its client id and a client secret
        (OAuth 2.0 client credentials). Give it roles under Role assignments or through a user group.
      </p>
      {revealed && <OneTimeSecret revealed={revealed} onDone={() => setRevealed(null)} />}
      {admin && (
        <CreateAccount
          open={creating}
          onClose={() => setCreating(false)}
          organizationId={organizationId}
          onCreated={(account, secret) => {
            accounts.reload();
            if (secret) setCreating(false);
            if (secret) setRevealed({ ...secret, accountName: account.name, rotated: false });
            navigate(`${base}?account=${seg(account.id)}`, true);
          }}
        />
      )}
      <Section title="All service accounts">
        <Loaded state={accounts}>
          {(rows) => (
            <Table
              caption="Service accounts"
              rowKey={(a) => a.id}
              empty="The organization has no service accounts."
              rows={rows}
              columns={[
                {
                  label: 'Name',
                  cell: (a) => (
                    <Link to={`${base}?account=${seg(a.id)}`} {...(a.id === selectedId ? { 'aria-current': 'true' as const } : {})}>
                      {a.name}
                    </Link>
                  ),
                },
                { label: 'Client id', cell: (a) => <code>{a.clientId}</code> },
                { label: 'Description', cell: (a) => a.description || '—' },
                { label: 'Created', cell: (a) => formatTime(a.createdAt) },
              ]}
            />
          )}
        </Loaded>
      </Section>
      {selectedId && accounts.data && !selected && <ErrorBox error={new Error('That service account does not exist (any more).')} />}
      {selected && (
        <AccountDetails
          key={selected.id}
          organizationId={organizationId}
          account={selected}
          admin={admin}
          onChanged={accounts.reload}
          onDeleted={() => {
            setRevealed(null);
            navigate(base, true);
            accounts.reload();
          }}
          onSecret={(secret, rotated) => setRevealed({ ...secret, accountName: selected.name, rotated })}
        />
      )}
    </Page>
  );
}

/** A value quoted for a POSIX shell. */
const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** The curl command that gets a token with the new secret (OAuth 2.0 client credentials), ready to paste into a shell. */
const tokenCommand = (r: Revealed) =>
  `curl -fsS ${shellQuote(r.tokenUrl)} -d grant_type=client_credentials -d scope=api_access -d client_id=${shellQuote(r.clientId)} --data-urlencode client_secret=${shellQuote(r.value)}`;

/** The secret's value, the one time it exists outside the server's hash: copy it now. */
function OneTimeSecret({ revealed, onDone }: { revealed: Revealed; onDone: () => void }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus();
    ref.current?.scrollIntoView({ block: 'nearest' });
  }, [revealed]);
  return (
    <section className="alert warning one-time-secret" aria-labelledby="one-time-secret-title">
      <h2 id="one-time-secret-title" tabIndex={-1} ref={ref}>
        Copy the new secret of {revealed.accountName} now
      </h2>
      <p>
        <strong>This secret cannot be shown again.</strong> Only a hash of it is kept: once you leave or close this panel, nobody can read it any more.
        If it is lost, add or rotate a secret.
      </p>
      <dl className="facts">
        <dt>Client id</dt>
        <dd>
          <Copyable value={revealed.clientId} label="client id" />
        </dd>
        <dt>Client secret</dt>
        <dd>
          <Copyable value={revealed.value} label="client secret" />
        </dd>
        <dt>Token URL</dt>
        <dd>
          <Copyable value={revealed.tokenUrl} label="token URL" />
        </dd>
        <dt>Token for a script</dt>
        <dd>
          <Copyable value={tokenCommand(revealed)} label="token command" />
          <p className="hint">
            Answers JSON with an <code>access_token</code> (valid for <code>expires_in</code> seconds): send it as <code>Authorization: Bearer …</code> on
            each request to the APIs, and get a new one when it expires.
          </p>
        </dd>
        <dt>Expires</dt>
        <dd>{revealed.secret.expiresAt ? formatTime(revealed.secret.expiresAt) : 'never'}</dd>
      </dl>
      {revealed.rotated && (
        <p>
          {revealed.previousSecret
            ? `The previous secret (${revealed.previousSecret.hint}…) works until ${formatTime(revealed.previousSecret.expiresAt)}: switch your clients over before then.`
            : 'There was no other working secret to phase out.'}
        </p>
      )}
      <div className="buttons">
        <button type="button" onClick={onDone}>
          I have copied it: hide the secret
        </button>
      </div>
    </section>
  );
}

function ValiditySelect({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  return (
    <Field label="The secret works for" hint="After that it stops working; rotate before then.">
      {(p) => (
        <select {...p} value={value} onChange={(e) => onChange(e.target.value)}>
          {VALIDITY.map((v) => (
            <option key={v.label} value={v.seconds ?? ''}>
              {v.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

const secretInput = (description: string, validFor: string) => ({
  description: description.trim() || null,
  validForSeconds: validFor ? Number(validFor) : null,
});

function CreateAccount({
  open,
  onClose,
  organizationId,
  onCreated,
}: {
  open: boolean;
  onClose: () => void;
  organizationId: string;
  onCreated: (account: ServiceAccount, secret?: NewSecret) => void;
}) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [validFor, setValidFor] = useState('');
  const { run, busy, error, setError } = useAction(async () => {
    const created = await gql<{ createServiceAccount: ServiceAccount }>(
      `mutation CreateServiceAccount($organizationId: ID!, $input: ServiceAccountInput!) {
        createServiceAccount(organizationId: $organizationId, input: $input) { ${SERVICE_ACCOUNT_FIELDS} } }`,
      { organizationId, input: { name: name.trim(), description: description.trim() || null } },
    );
    const account = created.createServiceAccount;
    setName('');
    setDescription('');
    // The account is created without a secret: its first one is added at once, to be copied from the panel.
    try {
      const added = await gql<{ addServiceAccountSecret: NewSecret }>(
        `mutation FirstSecret($organizationId: ID!, $serviceAccountId: ID!, $input: ServiceAccountSecretInput!) {
          addServiceAccountSecret(organizationId: $organizationId, serviceAccountId: $serviceAccountId, input: $input) { ${NEW_SECRET_FIELDS} } }`,
        { organizationId, serviceAccountId: account.id, input: secretInput('First secret', validFor) },
      );
      onCreated(account, added.addServiceAccountSecret);
    } catch (err) {
      onCreated(account);
      throw new ApiError(`The service account was created, but its first secret was not: ${(err as Error).message} Add a secret to it.`, 'SECRET');
    }
  });
  useEffect(() => {
    if (open) setError(undefined);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);
  return (
    <Dialog title="New service account" open={open} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          run();
        }}
      >
        <Field label="Name" hint="1 to 200 characters, e.g. what the program is.">
          {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} autoComplete="off" />}
        </Field>
        <Field label="Description (optional)">{(p) => <textarea {...p} value={description} onChange={(e) => setDescription(e.target.value)} maxLength={2000} />}</Field>
        <ValiditySelect value={validFor} onChange={setValidFor} />
        <p className="hint">Its first secret is made with it and shown once, to be copied.</p>
        <ErrorBox error={error} />
        <DialogButtons label="Create service account" disabled={busy} onCancel={onClose} />
      </form>
    </Dialog>
  );
}

function AccountDetails({
  organizationId,
  account,
  admin,
  onChanged,
  onDeleted,
  onSecret,
}: {
  organizationId: string;
  account: ServiceAccount;
  admin: boolean;
  onChanged: () => void;
  onDeleted: () => void;
  onSecret: (secret: NewSecret, rotated: boolean) => void;
}) {
  const ids = { organizationId, serviceAccountId: account.id };
  const secrets = useLoad(() => allPages<Secret>(SECRETS_QUERY, 'serviceAccountSecrets', ids), [organizationId, account.id]);
  const [dialog, setDialog] = useState<'add' | 'rotate' | 'delete' | null>(null);
  const [deleting, setDeleting] = useState<Secret | null>(null);
  const heading = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // A block, not an expression: scrollIntoView answers a promise in newer browsers, which React would take for a cleanup.
    heading.current?.scrollIntoView({ block: 'nearest' });
  }, [account.id]);
  const activeCount = secrets.data?.filter((s) => s.active).length ?? 0;

  return (
    <div className="selected-account" ref={heading}>
      <Section
        title={`Service account ${account.name}`}
        actions={
          admin && (
            <button type="button" className="danger" onClick={() => setDialog('delete')}>
              Delete service account
            </button>
          )
        }
      >
        <dl className="facts">
          <dt>Client id</dt>
          <dd>
            <Copyable value={account.clientId} label={`client id of ${account.name}`} />
          </dd>
          <dt>Token URL</dt>
          <dd>
            <code>{account.tokenUrl}</code>
          </dd>
          <dt>Created</dt>
          <dd>{formatTime(account.createdAt)}</dd>
          <dt>Changed</dt>
          <dd>{formatTime(account.updatedAt)}</dd>
          {!admin && (
            <>
              <dt>Description</dt>
              <dd>{account.description || '—'}</dd>
            </>
          )}
        </dl>
        {admin && <EditAccount key={account.etag} organizationId={organizationId} account={account} onSaved={onChanged} />}
      </Section>

      <Section
        title="Secrets"
        actions={
          admin && (
            <>
              <button type="button" onClick={() => setDialog('rotate')}>
                Rotate secret
              </button>
              <button type="button" className="secondary" onClick={() => setDialog('add')}>
                Add secret
              </button>
            </>
          )
        }
      >
        <p className="hint">
          Secret values are never stored, only their first characters (the hint) to tell them apart. At most two secrets work at a time
          {secrets.data ? `; ${activeCount} ${activeCount === 1 ? 'works' : 'work'} now` : ''}.
        </p>
        <Loaded state={secrets}>
          {(rows) => (
            <Table
              caption={`Secrets of ${account.name}`}
              rowKey={(s) => s.id}
              empty="No secrets: this service account cannot get tokens."
              rows={rows}
              columns={[
                { label: 'Hint', cell: (s) => <code>{s.hint}…</code> },
                { label: 'Description', cell: (s) => s.description || '—' },
                { label: 'Created', cell: (s) => formatTime(s.createdAt) },
                { label: 'Expires', cell: (s) => (s.expiresAt ? formatTime(s.expiresAt) : 'never') },
                { label: 'Status', cell: (s) => <span className={`badge ${s.active ? 'ok' : 'bad'}`}>{s.active ? 'Works' : 'Expired'}</span> },
                ...(admin
                  ? [
                      {
                        label: 'Actions',
                        cell: (s: Secret) => (
                          <button type="button" className="secondary small" onClick={() => setDeleting(s)} aria-label={`Delete secret ${s.hint}…`}>
                            Delete
                          </button>
                        ),
                      },
                    ]
                  : []),
              ]}
            />
          )}
        </Loaded>
      </Section>

      {admin && (
        <>
          <NewSecretDialog
            mode={dialog === 'add' || dialog === 'rotate' ? dialog : null}
            organizationId={organizationId}
            account={account}
            onClose={() => setDialog(null)}
            onMade={(secret) => {
              const rotated = dialog === 'rotate';
              setDialog(null);
              secrets.reload();
              onSecret(secret, rotated);
            }}
          />
          <ConfirmDialog
            title={`Delete service account ${account.name}?`}
            open={dialog === 'delete'}
            onClose={() => setDialog(null)}
            confirmLabel="Delete service account"
            onConfirm={async () => {
              await gql(
                `mutation DeleteServiceAccount($organizationId: ID!, $serviceAccountId: ID!, $ifMatch: String) {
                  deleteServiceAccount(organizationId: $organizationId, serviceAccountId: $serviceAccountId, ifMatch: $ifMatch) }`,
                { ...ids, ifMatch: account.etag },
              );
              onDeleted();
            }}
          >
            <p>
              Its secrets stop working at once, and its role assignments and group memberships are removed. Programs using it can no longer sign in.
              This cannot be undone.
            </p>
          </ConfirmDialog>
          <ConfirmDialog
            title="Delete this secret?"
            open={deleting !== null}
            onClose={() => setDeleting(null)}
            confirmLabel="Delete secret"
            onConfirm={async () => {
              await gql(
                `mutation DeleteSecret($organizationId: ID!, $serviceAccountId: ID!, $secretId: ID!) {
                  deleteServiceAccountSecret(organizationId: $organizationId, serviceAccountId: $serviceAccountId, secretId: $secretId) }`,
                { ...ids, secretId: deleting!.id },
              );
              secrets.reload();
            }}
          >
            <p>
              The secret <code>{deleting?.hint}…</code> stops working at once: programs still using it can no longer get tokens.
            </p>
          </ConfirmDialog>
        </>
      )}
    </div>
  );
}

function NewSecretDialog({
  mode,
  organizationId,
  account,
  onClose,
  onMade,
}: {
  mode: 'add' | 'rotate' | null;
  organizationId: string;
  account: ServiceAccount;
  onClose: () => void;
  onMade: (secret: NewSecret) => void;
}) {
  const [description, setDescription] = useState('');
  const [validFor, setValidFor] = useState('');
  const [overlap, setOverlap] = useState(String(DAY));
  const { run, busy, error, setError } = useAction(async () => {
    const variables = { organizationId, serviceAccountId: account.id };
    if (mode === 'rotate') {
      const data = await gql<{ rotateServiceAccountSecret: NewSecret }>(
        `mutation Rotate($organizationId: ID!, $serviceAccountId: ID!, $input: ServiceAccountSecretRotation!) {
          rotateServiceAccountSecret(organizationId: $organizationId, serviceAccountId: $serviceAccountId, input: $input) { ${NEW_SECRET_FIELDS} } }`,
        { ...variables, input: { ...secretInput(description, validFor), previousSecretValidForSeconds: Number(overlap) } },
      );
      onMade(data.rotateServiceAccountSecret);
    } else {
      const data = await gql<{ addServiceAccountSecret: NewSecret }>(
        `mutation AddSecret($organizationId: ID!, $serviceAccountId: ID!, $input: ServiceAccountSecretInput!) {
          addServiceAccountSecret(organizationId: $organizationId, serviceAccountId: $serviceAccountId, input: $input) { ${NEW_SECRET_FIELDS} } }`,
        { ...variables, input: secretInput(description, validFor) },
      );
      onMade(data.addServiceAccountSecret);
    }
  });
  useEffect(() => {
    setDescription('');
    setValidFor('');
    setOverlap(String(DAY));
    setError(undefined);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [mode]);
  return (
    <Dialog title={mode === 'rotate' ? `Rotate the secret of ${account.name}` : `Add a secret to ${account.name}`} open={mode !== null} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          run();
        }}
      >
        <p>
          {mode === 'rotate'
            ? 'A new secret is made, and the one that works now is phased out: it keeps working for the time you choose, so your programs can switch over.'
            : 'A second secret that works next to the current one (at most two work at a time).'}
        </p>
        <Field label="Description (optional)" hint="Where the secret is used, e.g. the host or program.">
          {(p) => <input {...p} value={description} onChange={(e) => setDescription(e.target.value)} maxLength={2000} autoComplete="off" />}
        </Field>
        <ValiditySelect value={validFor} onChange={setValidFor} />
        {mode === 'rotate' && (
          <Field label="The current secret keeps working for" hint="Never longer than it would have anyway.">
            {(p) => (
              <select {...p} value={overlap} onChange={(e) => setOverlap(e.target.value)}>
                {OVERLAP.map((o) => (
                  <option key={o.seconds} value={o.seconds}>
                    {o.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
        <ErrorBox error={error} />
        <DialogButtons label={mode === 'rotate' ? 'Rotate' : 'Add secret'} disabled={busy} onCancel={onClose} />
      </form>
    </Dialog>
  );
}

function EditAccount({ organizationId, account, onSaved }: { organizationId: string; account: ServiceAccount; onSaved: () => void }) {
  const ids = { organizationId, serviceAccountId: account.id };
  return (
    <NameAndDescriptionForm
      loaded={account}
      save={(edit, ifMatch) =>
        gql(
          `mutation UpdateServiceAccount($organizationId: ID!, $serviceAccountId: ID!, $ifMatch: String, $input: ServiceAccountPatch!) {
          updateServiceAccount(organizationId: $organizationId, serviceAccountId: $serviceAccountId, ifMatch: $ifMatch, input: $input) { id etag } }`,
          { ...ids, ifMatch, input: { name: edit.name.trim(), description: edit.description.trim() || null } },
        )
      }
      current={async () =>
        (
          await gql<{ serviceAccount: ServiceAccount }>(
            `query ServiceAccount($organizationId: ID!, $serviceAccountId: ID!) { serviceAccount(organizationId: $organizationId, serviceAccountId: $serviceAccountId) { ${SERVICE_ACCOUNT_FIELDS} } }`,
            ids,
          )
        ).serviceAccount
      }
      onSaved={onSaved}
      nameField={(value, onChange) => (
        <Field label="Name">{(p) => <input {...p} value={value} onChange={(e) => onChange(e.target.value)} required maxLength={200} autoComplete="off" />}</Field>
      )}
    />
  );
}
