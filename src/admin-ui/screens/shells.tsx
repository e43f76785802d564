import { FormEvent, useState } from 'react';
import { b64url, download, gql, rest, tenantApi } from '../api';
import { Link, seg } from '../router';
import { Checkbox, ErrorBox, Field, Loaded, Page, Section, Table, useAction, useLoad } from '../ui';
import { TenantTabs } from './tenant-tabs';
import { Pager, usePaging } from './tenant-data';
import './tenant-data.css';

interface ShellRow {
  id: string;
  idShort?: string | null;
  assetInformation: { assetKind: string; globalAssetId?: string | null; assetType?: string | null };
}

const SHELLS = `query Shells($tenant: String!, $filter: ShellFilterInput, $limit: Int!, $cursor: String) {
  shells(tenant: $tenant, filter: $filter, limit: $limit, cursor: $cursor) {
    result { id idShort assetInformation { assetKind globalAssetId assetType } }
    pagingMetadata { cursor }
  }
}`;

/** What the filter searches: the `shells` query's filter fields. */
const SEARCH_BY = {
  idShort: { label: 'idShort contains', filter: (text: string) => ({ idShortContains: text }) },
  id: { label: 'id contains', filter: (text: string) => ({ idContains: text }) },
  asset: { label: 'global asset id is', filter: (text: string) => ({ assetIds: [{ name: 'globalAssetId', value: text }] }) },
} as const;
type SearchBy = keyof typeof SEARCH_BY;

/** The export formats of `GET /serialization`, by the media type it is asked for. */
const FORMATS = {
  aasx: { label: 'AASX package', accept: 'application/asset-administration-shell-package+xml', extension: 'aasx' },
  json: { label: 'JSON environment', accept: 'application/json', extension: 'json' },
  xml: { label: 'XML environment', accept: 'application/xml', extension: 'xml' },
} as const;
type Format = keyof typeof FORMATS;

/** The tenant's shells: filtered, paged, each linking to its page; chosen ones exported as AASX, JSON or XML. */
export function ShellsPage({ organizationId, tenant }: { organizationId: string; tenant: string }) {
  const [searchBy, setSearchBy] = useState<SearchBy>('idShort');
  const [text, setText] = useState('');
  const [applied, setApplied] = useState<{ by: SearchBy; text: string }>({ by: 'idShort', text: '' });
  const pages = usePaging();
  const { paging, pageSize } = pages;
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const state = useLoad(async () => {
    const filter = applied.text ? SEARCH_BY[applied.by].filter(applied.text) : undefined;
    const data = await gql<{ shells: { result: ShellRow[]; pagingMetadata: { cursor?: string | null } } }>(SHELLS, { tenant, filter, limit: pageSize, cursor: paging.cursor });
    return data.shells;
  }, [tenant, applied, pageSize, paging]);

  const search = (e: FormEvent) => {
    e.preventDefault();
    setApplied({ by: searchBy, text: text.trim() });
    pages.restart();
    setChosen(new Set());
  };
  const choose = (id: string, on: boolean) =>
    setChosen((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  const base = `/org/${organizationId}/tenants/${seg(tenant)}`;
  return (
    <Page title={`Shells of ${tenant}`}>
      <TenantTabs organizationId={organizationId} tenant={tenant} />
      <form className="filter" onSubmit={search} role="search" aria-label="Filter shells">
        <Field label="Search by">
          {(p) => (
            <select {...p} value={searchBy} onChange={(e) => setSearchBy(e.target.value as SearchBy)}>
              {Object.entries(SEARCH_BY).map(([key, s]) => (
                <option key={key} value={key}>
                  {s.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Text">{(p) => <input {...p} type="search" value={text} onChange={(e) => setText(e.target.value)} />}</Field>
        <div className="buttons">
          <button type="submit">Filter</button>
          {applied.text && (
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setText('');
                setApplied({ by: searchBy, text: '' });
                pages.restart();
              }}
            >
              Show all
            </button>
          )}
        </div>
      </form>
      <Loaded state={state}>
        {(page) => {
          const allChosen = page.result.length > 0 && page.result.every((s) => chosen.has(s.id));
          return (
            <>
              {page.result.length > 0 && (
                <Checkbox
                  label="Choose every shell on this page"
                  checked={allChosen}
                  onChange={(on) => page.result.forEach((s) => choose(s.id, on))}
                />
              )}
              <Table
                caption="Shells"
                rowKey={(s) => s.id}
                rows={page.result}
                empty={applied.text ? 'No shell matches this filter.' : 'This tenant has no shells yet. Import an AASX package to add some.'}
                columns={[
                  {
                    label: 'Export',
                    cell: (s) => (
                      <input type="checkbox" aria-label={`Choose ${s.idShort || s.id} for export`} checked={chosen.has(s.id)} onChange={(e) => choose(s.id, e.target.checked)} />
                    ),
                  },
                  { label: 'idShort', cell: (s) => <Link to={`${base}/shells/${b64url(s.id)}`}>{s.idShort || '(no idShort)'}</Link> },
                  { label: 'Id', cell: (s) => <code>{s.id}</code> },
                  { label: 'Asset kind', cell: (s) => s.assetInformation.assetKind },
                  { label: 'Global asset id', cell: (s) => (s.assetInformation.globalAssetId ? <code>{s.assetInformation.globalAssetId}</code> : '—') },
                ]}
              />
              <Pager label="shells" cursor={page.pagingMetadata.cursor} pages={pages} />
            </>
          );
        }}
      </Loaded>
      <Section title="Export">
        <Export tenant={tenant} chosen={[...chosen]} />
      </Section>
    </Page>
  );
}

/** Downloads the chosen shells, their submodels and (optionally) concept descriptions through `GET /serialization`. */
function Export({ tenant, chosen }: { tenant: string; chosen: string[] }) {
  const [format, setFormat] = useState<Format>('aasx');
  const [withSubmodels, setWithSubmodels] = useState(true);
  const [withConceptDescriptions, setWithConceptDescriptions] = useState(true);
  const { run, busy, error } = useAction(async () => {
    const params = new URLSearchParams();
    for (const id of chosen) params.append('aasIds', b64url(id));
    if (withSubmodels) for (const id of await submodelsOf(tenant, chosen)) params.append('submodelIds', b64url(id));
    params.set('includeConceptDescriptions', String(withConceptDescriptions));
    const f = FORMATS[format];
    const res = await rest(`${tenantApi(tenant, '/serialization')}?${params}`, { headers: { accept: f.accept } });
    const name = chosen.length === 1 ? chosen[0].replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '') || 'shell' : `${tenant}-shells`;
    await download(res, `${name}.${f.extension}`);
  });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        run();
      }}
    >
      <p>
        {chosen.length
          ? `${chosen.length} shell${chosen.length === 1 ? '' : 's'} chosen.`
          : 'Choose shells in the list above (their checkboxes) to download them as one file.'}
      </p>
      <fieldset className="export">
        <legend>What to download</legend>
        <Field label="Format">
          {(p) => (
            <select {...p} value={format} onChange={(e) => setFormat(e.target.value as Format)}>
              {Object.entries(FORMATS).map(([key, f]) => (
                <option key={key} value={key}>
                  {f.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Checkbox label="With their submodels" checked={withSubmodels} onChange={setWithSubmodels} />
        <Checkbox
          label="With the concept descriptions they use"
          checked={withConceptDescriptions}
          onChange={setWithConceptDescriptions}
          hint="Those the submodels' semantic ids and value lists name, if this tenant stores them."
        />
      </fieldset>
      <ErrorBox error={error} />
      <div className="buttons">
        <button type="submit" disabled={busy || !chosen.length}>
          {busy ? 'Preparing the download…' : 'Download'}
        </button>
      </div>
    </form>
  );
}

/** The ids of the submodels the shells reference and the tenant stores (one request for all of them). */
async function submodelsOf(tenant: string, shellIds: string[]): Promise<string[]> {
  if (!shellIds.length) return [];
  const vars = shellIds.map((_, i) => `$id${i}: String!`).join(', ');
  const fields = shellIds.map((_, i) => `s${i}: shell(tenant: $tenant, id: $id${i}) { submodels { id } }`).join('\n');
  const data = await gql<Record<string, { submodels: { id: string }[] }>>(
    `query ExportSubmodels($tenant: String!, ${vars}) { ${fields} }`,
    Object.fromEntries([['tenant', tenant], ...shellIds.map((id, i) => [`id${i}`, id])]),
  );
  return [...new Set(Object.values(data).flatMap((s) => s.submodels.map((m) => m.id)))];
}
