import { FormEvent, useState } from 'react';
import { ApiError, gql } from '../api';
import { useAccess, useReloadMe } from '../me';
import { navigate } from '../router';
import { ChangedField, Checkbox, ConfirmDialog, ConflictPanel, Copyable, ErrorBox, Field, Loaded, Notice, Page, Section, Table, formatTime, useAction, useLoad } from '../ui';
import { TenantTabs } from './tenant-tabs';
import { NAME_PATTERN, TENANT_FIELDS, Tenant, TenantBadges } from './tenants';
import './tenants.css';

const loadTenant = async (name: string) => (await gql<{ tenant: Tenant }>(`query Tenant($tenant: String!) { tenant(tenant: $tenant) { ${TENANT_FIELDS} } }`, { tenant: name })).tenant;

/** One tenant: its settings, registry instances and push targets, and (for organization owners) its deletion. */
export function TenantPage({ organizationId, tenant: name }: { organizationId: string; tenant: string }) {
  const access = useAccess();
  const admin = access.administers(organizationId);
  const state = useLoad(async () => {
    const tenant = await loadTenant(name);
    // The same name in the path of another organization: not this organization's tenant.
    if (tenant.organizationId !== organizationId) throw new ApiError(`Tenant '${name}' not found in this organization.`, 'NOT_FOUND');
    return tenant;
  }, [organizationId, name]);
  const [saved, setSaved] = useState(false);
  return (
    <Page title={`Tenant ${name}`}>
      <TenantTabs organizationId={organizationId} tenant={name} />
      <Loaded state={state}>
        {(tenant) => (
          <>
            {tenant.showcase && (
              <Notice kind="warning">
                <strong>Showcase mode is on.</strong> This tenant's API needs no token: anyone who can reach the server can read and change its data.
              </Notice>
            )}
            <dl className="facts">
              <dt>Name</dt>
              <dd>
                <code>{tenant.name}</code>
              </dd>
              <dt>API URL</dt>
              <dd>
                <Copyable value={`${tenant.url}/api/v3.0`} label="API URL" />
              </dd>
              <dt>Created</dt>
              <dd>{formatTime(tenant.createdAt)}</dd>
              <dt>Last changed</dt>
              <dd>{formatTime(tenant.updatedAt)}</dd>
            </dl>
            <Section title="Settings">
              {saved && <Notice kind="success">Settings saved.</Notice>}
              {admin ? (
                <SettingsForm
                  key={tenant.etag}
                  tenant={tenant}
                  onEdit={() => setSaved(false)}
                  onSaved={() => {
                    setSaved(true);
                    state.reload();
                  }}
                  onReload={() => {
                    setSaved(false);
                    state.reload();
                  }}
                />
              ) : (
                <SettingsFacts tenant={tenant} />
              )}
            </Section>
            <RegistryInstances organizationId={organizationId} tenant={tenant} admin={admin} />
            <PushTargets tenant={tenant} writes={admin || access.writes(tenant.name)} />
            {admin && <DeleteTenant organizationId={organizationId} tenant={tenant} />}
          </>
        )}
      </Loaded>
    </Page>
  );
}

const onOff = (value: boolean) => (value ? 'on' : 'off');

function SettingsFacts({ tenant }: { tenant: Tenant }) {
  return (
    <dl className="facts">
      <dt>Friendly name</dt>
      <dd>{tenant.friendlyName || '—'}</dd>
      <dt>Tag</dt>
      <dd>{tenant.tag || '—'}</dd>
      <dt>Mode</dt>
      <dd>
        <TenantBadges tenant={tenant} />
      </dd>
      <dt>Showcase mode</dt>
      <dd>{onOff(tenant.showcase)}</dd>
      <dt>Change events</dt>
      <dd>{onOff(tenant.eventsEnabled)}</dd>
    </dl>
  );
}

interface Settings {
  friendlyName: string;
  tag: string;
  showcase: boolean;
  eventsEnabled: boolean;
}

const settingsOf = (t: Tenant): Settings => ({ friendlyName: t.friendlyName ?? '', tag: t.tag ?? '', showcase: t.showcase, eventsEnabled: t.eventsEnabled });

/** The fields of the settings as loaded, as on the server now, and as edited: what the conflict panel lists. */
function changedFields(loaded: Settings, current: Settings, mine: Settings): ChangedField[] {
  const row = (label: string, key: keyof Settings) => {
    const text = (s: Settings) => (typeof s[key] === 'boolean' ? onOff(s[key] as boolean) : (s[key] as string));
    return { label, loaded: text(loaded), current: text(current), mine: text(mine) };
  };
  return [row('Friendly name', 'friendlyName'), row('Tag', 'tag'), row('Showcase mode', 'showcase'), row('Change events', 'eventsEnabled')];
}

function SettingsForm({ tenant, onEdit, onSaved, onReload }: { tenant: Tenant; onEdit: () => void; onSaved: () => void; onReload: () => void }) {
  const loaded = settingsOf(tenant);
  const [edit, setEdit] = useState<Settings>(loaded);
  const [confirming, setConfirming] = useState(false);
  const [conflict, setConflict] = useState<ChangedField[]>();
  const change = (patch: Partial<Settings>) => {
    onEdit();
    setEdit((s) => ({ ...s, ...patch }));
  };
  const opensShowcase = edit.showcase && !tenant.showcase;

  /** Saves with the loaded ETag: a change by someone else meanwhile is shown, never overwritten. */
  const save = async () => {
    try {
      await gql(`mutation UpdateTenant($organizationId: ID!, $tenantId: ID!, $input: TenantPatch!, $ifMatch: String) {
        updateTenant(organizationId: $organizationId, tenantId: $tenantId, input: $input, ifMatch: $ifMatch) { id etag }
      }`, {
        organizationId: tenant.organizationId,
        tenantId: tenant.id,
        ifMatch: tenant.etag,
        input: { friendlyName: edit.friendlyName.trim() || null, tag: edit.tag.trim() || null, showcase: edit.showcase, eventsEnabled: edit.eventsEnabled },
      });
      onSaved();
    } catch (err) {
      if (!(err instanceof ApiError && err.isConflict)) throw err;
      const now = await loadTenant(tenant.name);
      setConflict(changedFields(loaded, settingsOf(now), edit));
    }
  };
  const saving = useAction(save);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (opensShowcase) setConfirming(true);
    else saving.run();
  };

  if (conflict) return <ConflictPanel fields={conflict} onReload={onReload} />;
  return (
    <>
      <form onSubmit={submit} className="tenant-form">
        <Field label="Friendly name" hint="At most 200 characters; empty removes it.">
          {(p) => <input {...p} type="text" value={edit.friendlyName} onChange={(e) => change({ friendlyName: e.target.value })} maxLength={200} />}
        </Field>
        <Field label="Tag" hint="At most 100 characters; empty removes it.">
          {(p) => <input {...p} type="text" value={edit.tag} onChange={(e) => change({ tag: e.target.value })} maxLength={100} />}
        </Field>
        <Checkbox
          label="Change events"
          checked={edit.eventsEnabled}
          onChange={(eventsEnabled) => change({ eventsEnabled })}
          hint="Each change of a shell, submodel or concept description is published (MQTT, GraphQL subscriptions)."
        />
        <Checkbox
          label="Showcase mode"
          checked={edit.showcase}
          onChange={(showcase) => change({ showcase })}
          hint="The tenant's API then needs no token. For demonstrations only."
        />
        {opensShowcase && <ShowcaseWarning />}
        <ErrorBox error={saving.error} />
        <div className="buttons">
          <button type="submit" disabled={saving.busy}>
            Save settings
          </button>
        </div>
      </form>
      <ConfirmDialog title="Open this tenant to everyone?" open={confirming} onClose={() => setConfirming(false)} onConfirm={save} confirmLabel="Turn showcase mode on and save">
        <ShowcaseWarning />
        <p>Turn it on only for demonstration data you may lose or see changed. You can turn it off again at any time.</p>
      </ConfirmDialog>
    </>
  );
}

function ShowcaseWarning() {
  return (
    <div className="alert warning" role="note">
      <p>
        <strong>Showcase mode opens this tenant to anyone.</strong>
      </p>
      <p>
        Its API then needs no token: anyone who can reach the server can read <strong>and change or delete</strong> its shells, submodels, concept descriptions and files.
        Never use it for production data.
      </p>
    </div>
  );
}

interface RegistryInstance {
  id: string;
  name: string;
  kind: string;
  url: string;
  etag: string;
  createdAt: string;
}

const KINDS: Record<string, string> = { discovery: 'Discovery service', 'aas-registry': 'AAS registry' };

function RegistryInstances({ organizationId, tenant, admin }: { organizationId: string; tenant: Tenant; admin: boolean }) {
  const ids = { organizationId, tenantId: tenant.id };
  const list = useLoad(
    async () =>
      (
        await gql<{ registryInstances: { result: RegistryInstance[]; pagingMetadata: { cursor?: string | null } } }>(
          `query RegistryInstances($organizationId: ID!, $tenantId: ID!) {
            registryInstances(organizationId: $organizationId, tenantId: $tenantId, limit: 100) { result { id name kind url etag createdAt } pagingMetadata { cursor } }
          }`,
          ids,
        )
      ).registryInstances,
    [tenant.id],
  );
  const [name, setName] = useState('');
  const [kind, setKind] = useState('aas-registry');
  const [deleting, setDeleting] = useState<RegistryInstance>();
  const create = useAction(async () => {
    await gql(`mutation CreateRegistryInstance($organizationId: ID!, $tenantId: ID!, $input: RegistryInstanceInput!) {
      createRegistryInstance(organizationId: $organizationId, tenantId: $tenantId, input: $input) { id }
    }`, { ...ids, input: { name, kind } });
    setName('');
    list.reload();
  });
  return (
    <Section title="Registry instances">
      <p>
        Explicit AAS registries and discovery services of their own, each at <code>{tenant.url}/&#123;name&#125;/api/v3.0</code>. The tenant's implicit registry and
        discovery, derived from its shells, need no instance.
      </p>
      <Loaded state={list}>
        {(page) => (
          <>
            <Table
              caption="Registry instances of the tenant"
              rowKey={(i) => i.id}
              empty="No registry instance."
              rows={page.result}
              columns={[
                { label: 'Name', cell: (i) => i.name },
                { label: 'Kind', cell: (i) => KINDS[i.kind] ?? i.kind },
                { label: 'URL', cell: (i) => <code className="url">{i.url}</code> },
                { label: 'Created', cell: (i) => formatTime(i.createdAt) },
                ...(admin
                  ? [
                      {
                        label: 'Actions',
                        cell: (i: RegistryInstance) => (
                          <button type="button" className="danger small" onClick={() => setDeleting(i)} aria-label={`Delete registry instance ${i.name}`}>
                            Delete
                          </button>
                        ),
                      },
                    ]
                  : []),
              ]}
            />
            {page.pagingMetadata.cursor && <p className="hint">The first 100 instances are shown.</p>}
          </>
        )}
      </Loaded>
      {admin && (
        <form
          className="inline tenant-form"
          onSubmit={(e) => {
            e.preventDefault();
            create.run();
          }}
        >
          <Field label="Instance name" hint="Lowercase letters, digits and inner dashes; the path segment of its URL.">
            {(p) => <input {...p} type="text" value={name} onChange={(e) => setName(e.target.value)} required pattern={NAME_PATTERN} maxLength={63} autoComplete="off" spellCheck={false} />}
          </Field>
          <Field label="Kind">
            {(p) => (
              <select {...p} value={kind} onChange={(e) => setKind(e.target.value)}>
                <option value="aas-registry">AAS registry</option>
                <option value="discovery">Discovery service</option>
              </select>
            )}
          </Field>
          <div className="buttons">
            <button type="submit" disabled={create.busy}>
              Create instance
            </button>
          </div>
        </form>
      )}
      <ErrorBox error={create.error} />
      <ConfirmDialog
        title={`Delete registry instance ${deleting?.name ?? ''}?`}
        open={deleting !== undefined}
        onClose={() => setDeleting(undefined)}
        confirmLabel="Delete instance"
        onConfirm={async () => {
          await gql(`mutation DeleteRegistryInstance($organizationId: ID!, $tenantId: ID!, $instanceId: ID!, $ifMatch: String) {
            deleteRegistryInstance(organizationId: $organizationId, tenantId: $tenantId, instanceId: $instanceId, ifMatch: $ifMatch)
          }`, { ...ids, instanceId: deleting!.id, ifMatch: deleting!.etag });
          list.reload();
        }}
      >
        <p>
          All its {deleting?.kind === 'discovery' ? 'asset links' : 'shell and submodel descriptors'} are deleted for good, and its URL stops answering.
        </p>
      </ConfirmDialog>
    </Section>
  );
}

interface PushTarget {
  id: string;
  kind: string;
  name?: string | null;
  url?: string | null;
  bucket?: string | null;
  region?: string | null;
  endpoint?: string | null;
  prefix?: string | null;
  format: string;
  secretSet: boolean;
  createdAt: string;
  lastSuccessAt?: string | null;
  lastError?: string | null;
  lastErrorAt?: string | null;
  backlog: number;
}

const PUSH_FIELDS = 'id kind name url bucket region endpoint prefix format secretSet createdAt lastSuccessAt lastError lastErrorAt backlog';

function pushState(t: PushTarget) {
  const failing = t.lastErrorAt && (!t.lastSuccessAt || t.lastErrorAt > t.lastSuccessAt);
  if (failing) return <span className="badge bad">Failing</span>;
  if (t.lastSuccessAt) return <span className="badge ok">Pushing</span>;
  return <span className="badge">No push yet</span>;
}

const pushWhere = (t: PushTarget) =>
  t.kind === 's3' ? `s3://${t.bucket ?? ''}/${t.prefix ?? ''} (${t.endpoint ?? `AWS ${t.region ?? ''}`})` : (t.url ?? '');

function PushTargets({ tenant, writes }: { tenant: Tenant; writes: boolean }) {
  const list = useLoad(
    async () =>
      (
        await gql<{ pushTargets: { result: PushTarget[]; pagingMetadata: { cursor?: string | null } } }>(
          `query PushTargets($tenant: String!) { pushTargets(tenant: $tenant, limit: 100) { result { ${PUSH_FIELDS} } pagingMetadata { cursor } } }`,
          { tenant: tenant.name },
        )
      ).pushTargets,
    [tenant.name],
  );
  const [deleting, setDeleting] = useState<PushTarget>();
  return (
    <Section
      title="Push targets"
      actions={
        <button type="button" className="secondary small" onClick={list.reload}>
          Refresh status
        </button>
      }
    >
      <p>Each shell that changes is pushed to these targets: an AASX File Server (a package per shell) or an S3 bucket. Failed pushes are retried.</p>
      <Loaded state={list}>
        {(page) => (
          <Table
            caption="Push targets and the state of their pushes"
            rowKey={(t) => t.id}
            empty="No push target."
            rows={page.result}
            columns={[
              {
                label: 'Target',
                cell: (t) => (
                  <>
                    {t.name && <strong className="block">{t.name}</strong>}
                    <code className="url">{pushWhere(t)}</code>
                  </>
                ),
              },
              { label: 'Kind', cell: (t) => `${t.kind === 's3' ? 'S3 bucket' : 'AASX File Server'}, ${t.format.toUpperCase()}${t.secretSet ? ', with credentials' : ''}` },
              { label: 'State', cell: pushState },
              { label: 'Last success', cell: (t) => formatTime(t.lastSuccessAt) },
              {
                label: 'Last error',
                cell: (t) =>
                  t.lastError ? (
                    <>
                      <span className="block">{t.lastError}</span>
                      <small className="hint">{formatTime(t.lastErrorAt)}</small>
                    </>
                  ) : (
                    '—'
                  ),
              },
              { label: 'Waiting', cell: (t) => `${t.backlog} ${t.backlog === 1 ? 'shell' : 'shells'}` },
              ...(writes
                ? [
                    {
                      label: 'Actions',
                      cell: (t: PushTarget) => (
                        <button type="button" className="danger small" onClick={() => setDeleting(t)} aria-label={`Delete push target ${t.name || pushWhere(t)}`}>
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
      {writes && <RegisterPushTarget tenant={tenant} onRegistered={list.reload} />}
      <ConfirmDialog
        title="Delete this push target?"
        open={deleting !== undefined}
        onClose={() => setDeleting(undefined)}
        confirmLabel="Delete push target"
        onConfirm={async () => {
          await gql(`mutation DeletePushTarget($tenant: String!, $id: String!) { deletePushTarget(tenant: $tenant, id: $id) }`, { tenant: tenant.name, id: deleting!.id });
          list.reload();
        }}
      >
        <p>
          Nothing is pushed to <code className="url">{deleting ? pushWhere(deleting) : ''}</code> any more; its {deleting?.backlog ?? 0} waiting pushes are dropped. What it received stays there.
        </p>
      </ConfirmDialog>
    </Section>
  );
}

function RegisterPushTarget({ tenant, onRegistered }: { tenant: Tenant; onRegistered: () => void }) {
  const empty = { kind: 'aasx-server', name: '', url: '', token: '', bucket: '', region: '', endpoint: '', prefix: '', format: 'aasx', forcePathStyle: false, accessKeyId: '', secretAccessKey: '' };
  const [f, setF] = useState(empty);
  const set = (patch: Partial<typeof empty>) => setF((s) => ({ ...s, ...patch }));
  const opt = (v: string) => (v.trim() ? v.trim() : undefined);
  const register = useAction(async () => {
    const target =
      f.kind === 's3'
        ? {
            kind: 's3',
            name: opt(f.name),
            bucket: f.bucket.trim(),
            region: f.region.trim(),
            endpoint: opt(f.endpoint),
            prefix: opt(f.prefix),
            format: f.format,
            forcePathStyle: f.forcePathStyle,
            credentials: { accessKeyId: f.accessKeyId, secretAccessKey: f.secretAccessKey },
          }
        : { kind: 'aasx-server', name: opt(f.name), url: f.url.trim(), token: opt(f.token) };
    await gql(`mutation RegisterPushTarget($tenant: String!, $target: PushTargetInput!) { registerPushTarget(tenant: $tenant, target: $target) { id } }`, {
      tenant: tenant.name,
      target,
    });
    setF(empty);
    onRegistered();
  });
  return (
    <form
      className="tenant-form"
      onSubmit={(e) => {
        e.preventDefault();
        register.run();
      }}
    >
      <h3>Register a push target</h3>
      <Field label="Push to">
        {(p) => (
          <select {...p} value={f.kind} onChange={(e) => set({ kind: e.target.value })}>
            <option value="aasx-server">An AASX File Server</option>
            <option value="s3">An S3 bucket</option>
          </select>
        )}
      </Field>
      <Field label="Name" hint="Optional: what it is, for you.">
        {(p) => <input {...p} type="text" value={f.name} onChange={(e) => set({ name: e.target.value })} />}
      </Field>
      {f.kind === 'aasx-server' ? (
        <>
          <Field label="Server URL" hint="The base URL of its AASX File Server API, where /packages is.">
            {(p) => <input {...p} type="url" value={f.url} onChange={(e) => set({ url: e.target.value })} required />}
          </Field>
          <Field label="Bearer token" hint="Optional. Stored for the pushes, never shown again.">
            {(p) => <input {...p} type="password" value={f.token} onChange={(e) => set({ token: e.target.value })} autoComplete="off" />}
          </Field>
        </>
      ) : (
        <>
          <Field label="Bucket">{(p) => <input {...p} type="text" value={f.bucket} onChange={(e) => set({ bucket: e.target.value })} required />}</Field>
          <Field label="Region" hint="e.g. eu-central-1">
            {(p) => <input {...p} type="text" value={f.region} onChange={(e) => set({ region: e.target.value })} required />}
          </Field>
          <Field label="Endpoint" hint="Optional: an S3-compatible service's URL; empty for AWS S3.">
            {(p) => <input {...p} type="url" value={f.endpoint} onChange={(e) => set({ endpoint: e.target.value })} />}
          </Field>
          <Field label="Key prefix" hint="Optional: put before every object key.">
            {(p) => <input {...p} type="text" value={f.prefix} onChange={(e) => set({ prefix: e.target.value })} />}
          </Field>
          <Field label="Format">
            {(p) => (
              <select {...p} value={f.format} onChange={(e) => set({ format: e.target.value })}>
                <option value="aasx">AASX package</option>
                <option value="json">JSON environment</option>
              </select>
            )}
          </Field>
          <Checkbox label="Bucket in the path (path-style URLs)" checked={f.forcePathStyle} onChange={(forcePathStyle) => set({ forcePathStyle })} />
          <Field label="Access key id">{(p) => <input {...p} type="text" value={f.accessKeyId} onChange={(e) => set({ accessKeyId: e.target.value })} required autoComplete="off" />}</Field>
          <Field label="Secret access key" hint="Stored for the pushes, never shown again.">
            {(p) => <input {...p} type="password" value={f.secretAccessKey} onChange={(e) => set({ secretAccessKey: e.target.value })} required autoComplete="off" />}
          </Field>
        </>
      )}
      <ErrorBox error={register.error} />
      <div className="buttons">
        <button type="submit" disabled={register.busy}>
          Register push target
        </button>
      </div>
    </form>
  );
}

/** What deleting the tenant loses, counted from the first page of each list ("at least 100" when there are more). */
interface Loss {
  what: string;
  count?: string;
}

async function countFirstPage(query: string, variables: Record<string, unknown>): Promise<string | undefined> {
  try {
    const data = await gql<Record<string, { result: unknown[]; pagingMetadata: { cursor?: string | null } }>>(query, variables);
    const page = Object.values(data)[0];
    return page.pagingMetadata.cursor ? `at least ${page.result.length}` : String(page.result.length);
  } catch {
    return undefined;
  }
}

async function losses(organizationId: string, tenant: Tenant): Promise<Loss[]> {
  const t = { tenant: tenant.name };
  const ids = { organizationId, tenantId: tenant.id };
  const PAGE = 'pagingMetadata { cursor }';
  const counts: [string, string, Record<string, unknown>][] = [
    ['Shells', `query($tenant: String!) { shells(tenant: $tenant, limit: 100) { result { id } ${PAGE} } }`, t],
    ['Submodels', `query($tenant: String!) { submodels(tenant: $tenant, limit: 100, level: core) { result { id } ${PAGE} } }`, t],
    ['Concept descriptions', `query($tenant: String!) { conceptDescriptions(tenant: $tenant, limit: 100) { result { id } ${PAGE} } }`, t],
    ['Files', `query($tenant: String!) { files(tenant: $tenant, limit: 100) { result { tfp } ${PAGE} } }`, t],
    ['AASX packages', `query($tenant: String!) { aasxPackages(tenant: $tenant, limit: 100) { result { packageId } ${PAGE} } }`, t],
    ['Registry instances (with their descriptors and asset links)', `query($organizationId: ID!, $tenantId: ID!) { registryInstances(organizationId: $organizationId, tenantId: $tenantId, limit: 100) { result { id } ${PAGE} } }`, ids],
    ['Push targets', `query($tenant: String!) { pushTargets(tenant: $tenant, limit: 100) { result { id } ${PAGE} } }`, t],
    ['Role assignments on this tenant', `query($organizationId: ID!, $tenantId: ID!) { tenantRoleAssignments(organizationId: $organizationId, tenantId: $tenantId, limit: 100) { result { id } ${PAGE} } }`, ids],
  ];
  return Promise.all(counts.map(async ([what, query, variables]) => ({ what, count: await countFirstPage(query, variables) })));
}

function DeleteTenant({ organizationId, tenant }: { organizationId: string; tenant: Tenant }) {
  const reloadMe = useReloadMe();
  const [open, setOpen] = useState(false);
  const lost = useLoad(async () => (open ? losses(organizationId, tenant) : undefined), [open, tenant.etag]);
  return (
    <Section title="Delete this tenant">
      <p>Deletes the tenant with everything in it, for good. Its URL stops answering.</p>
      <div className="buttons">
        <button type="button" className="danger" onClick={() => setOpen(true)}>
          Delete tenant…
        </button>
      </div>
      <ConfirmDialog
        title={`Delete tenant ${tenant.name}?`}
        open={open}
        onClose={() => setOpen(false)}
        confirmLabel="Delete tenant for good"
        confirmWord={tenant.name}
        onConfirm={async () => {
          await gql(`mutation DeleteTenant($organizationId: ID!, $tenantId: ID!, $ifMatch: String) { deleteTenant(organizationId: $organizationId, tenantId: $tenantId, ifMatch: $ifMatch) }`, {
            organizationId,
            tenantId: tenant.id,
            ifMatch: tenant.etag,
          });
          reloadMe();
          navigate(`/org/${organizationId}/tenants`);
        }}
      >
        <p>
          This deletes <strong>{tenant.name}</strong> and all its data. It cannot be undone. Lost for good:
        </p>
        {lost.data ? (
          <ul className="losses">
            {lost.data.map((l) => (
              <li key={l.what}>
                {l.what}: <strong>{l.count ?? 'all of them'}</strong>
              </li>
            ))}
            <li>
              Its API URL: <code className="url">{tenant.url}/api/v3.0</code>
            </li>
          </ul>
        ) : lost.error ? (
          <p>All its shells, submodels, concept descriptions, files, packages, registry instances, push targets and role assignments.</p>
        ) : (
          <p aria-busy="true">Counting what it holds…</p>
        )}
      </ConfirmDialog>
    </Section>
  );
}
