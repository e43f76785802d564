import { MouseEvent, ReactNode, useState } from 'react';
import { ApiError, b64url, download, gql, rest, tenantApi } from '../api';
import { fromB64url } from '../base64url';
import { useAccess } from '../me';
import { Link, seg } from '../router';
import { ChangedField, ConflictPanel, DialogButtons, ErrorBox, Field, Loaded, Notice, Page, Section, useAction, useLoad } from '../ui';
import { TenantTabs } from './tenant-tabs';
import { count } from './tenant-data';
import './tenant-data.css';

/** An element as the submodel's AAS JSON has it (the tree reads the JSON: every kind, every value, no second query). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- AAS JSON of every element kind, read field by field
type Json = Record<string, any>;

interface ShellData {
  id: string;
  idShort?: string | null;
  assetInformation: {
    assetKind: string;
    globalAssetId?: string | null;
    assetType?: string | null;
    specificAssetIds?: { name: string; value: string }[] | null;
    defaultThumbnail?: { path: string; contentType?: string | null } | null;
  };
  submodelRefs?: { keys: { value: string }[] }[] | null;
  submodels: { id: string; idShort?: string | null; etag?: string | null; json: Json }[];
}

const SHELL = `query Shell($tenant: String!, $id: String!) {
  shell(tenant: $tenant, id: $id) {
    id idShort
    assetInformation { assetKind globalAssetId assetType specificAssetIds { name value } defaultThumbnail { path contentType } }
    submodelRefs { keys { value } }
    submodels { id idShort etag json }
  }
}`;

const PATCH_VALUE = `mutation PatchValue($tenant: String!, $submodelId: String!, $idShortPath: String!, $value: JSON, $ifMatch: String) {
  patchSubmodelElementValue(tenant: $tenant, submodelId: $submodelId, idShortPath: $idShortPath, value: $value, ifMatch: $ifMatch) { etag }
}`;

const ELEMENT_NOW = `query ElementNow($tenant: String!, $submodelId: String!, $idShortPath: String!) {
  submodelElement(tenant: $tenant, submodelId: $submodelId, idShortPath: $idShortPath) { element { json } }
}`;

/** One shell: its facts and its submodels as a tree of elements with their typed values; contributors edit Property values. */
export function ShellPage({ organizationId, tenant, shellId }: { organizationId: string; tenant: string; shellId: string }) {
  const id = fromB64url(shellId);
  const state = useLoad(async () => {
    if (id === undefined) throw new Error('This address names no shell: its last part is not a base64url-encoded identifier.');
    return (await gql<{ shell: ShellData }>(SHELL, { tenant, id })).shell;
  }, [tenant, id]);
  const title = state.data ? `Shell ${state.data.idShort || state.data.id}` : 'Shell';
  return (
    <Page title={title}>
      <TenantTabs organizationId={organizationId} tenant={tenant} />
      <p>
        <Link to={`/org/${organizationId}/tenants/${seg(tenant)}/shells`}>Back to the shells</Link>
      </p>
      <Loaded state={state}>{(shell) => <ShellView tenant={tenant} shell={shell} reload={state.reload} />}</Loaded>
    </Page>
  );
}

function ShellView({ tenant, shell, reload }: { tenant: string; shell: ShellData; reload: () => void }) {
  const a = shell.assetInformation;
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const toggle = (key: string) =>
    setExpanded((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const stored = new Set(shell.submodels.map((s) => s.id));
  const missing = (shell.submodelRefs ?? []).map((r) => r.keys[r.keys.length - 1]?.value).filter((v): v is string => !!v && !stored.has(v));
  return (
    <>
      <dl className="facts">
        <dt>Id</dt>
        <dd>
          <code>{shell.id}</code>
        </dd>
        <dt>idShort</dt>
        <dd>{shell.idShort || '—'}</dd>
        <dt>Asset kind</dt>
        <dd>{a.assetKind}</dd>
        <dt>Global asset id</dt>
        <dd>{a.globalAssetId ? <code>{a.globalAssetId}</code> : '—'}</dd>
        {a.assetType && (
          <>
            <dt>Asset type</dt>
            <dd>
              <code>{a.assetType}</code>
            </dd>
          </>
        )}
        <dt>Specific asset ids</dt>
        <dd>
          {a.specificAssetIds?.length ? (
            <ul className="plain">
              {a.specificAssetIds.map((s, i) => (
                <li key={i}>
                  {s.name}: <code>{s.value}</code>
                </li>
              ))}
            </ul>
          ) : (
            '—'
          )}
        </dd>
        {a.defaultThumbnail && (
          <>
            <dt>Thumbnail</dt>
            <dd>
              {/^https?:\/\//i.test(a.defaultThumbnail.path) ? (
                <FileValue value={a.defaultThumbnail.path} />
              ) : (
                <ContentLink url={tenantApi(tenant, `/shells/${b64url(shell.id)}/asset-information/thumbnail`)} name={a.defaultThumbnail.path.split('/').pop() || 'thumbnail'}>
                  <code>{a.defaultThumbnail.path}</code>
                </ContentLink>
              )}{' '}
              {a.defaultThumbnail.contentType && <span className="element-type">({a.defaultThumbnail.contentType})</span>}
            </dd>
          </>
        )}
      </dl>
      <Section
        title="Submodels"
        actions={
          <div className="tree-tools">
            <button type="button" className="secondary small" onClick={() => setExpanded(new Set(allKeys(shell)))}>
              Expand all
            </button>
            <button type="button" className="secondary small" onClick={() => setExpanded(new Set())}>
              Collapse all
            </button>
          </div>
        }
      >
        {missing.length > 0 && (
          <Notice kind="warning">
            <p>The shell references submodels this tenant does not store:</p>
            <ul className="plain">
              {missing.map((m) => (
                <li key={m}>
                  <code>{m}</code>
                </li>
              ))}
            </ul>
          </Notice>
        )}
        {shell.submodels.length === 0 ? (
          <p className="empty">This shell has no submodels here.</p>
        ) : (
          <ul className="tree root">
            {shell.submodels.map((sm) => {
              const key = sm.id;
              const open = expanded.has(key);
              const elements = (sm.json.submodelElements ?? []) as Json[];
              return (
                <li key={sm.id}>
                  <div className="tree-node">
                    <button type="button" className="toggle" aria-expanded={open} onClick={() => toggle(key)}>
                      {sm.idShort || sm.id}
                    </button>
                    <span className="element-type">Submodel</span>
                    <code>{sm.id}</code>
                  </div>
                  {open &&
                    (elements.length ? (
                      <Elements
                        ctx={{ tenant, submodel: sm, expanded, toggle, reload }}
                        elements={elements}
                        parentPath=""
                        inList={false}
                      />
                    ) : (
                      <p className="empty tree-message">No elements.</p>
                    ))}
                </li>
              );
            })}
          </ul>
        )}
      </Section>
    </>
  );
}

interface TreeContext {
  tenant: string;
  submodel: ShellData['submodels'][number];
  expanded: Set<string>;
  toggle: (key: string) => void;
  reload: () => void;
}

/** The child elements of an element, each with what addresses it: its idShortPath, or none (operation variables). */
function childrenOf(element: Json): { elements: Json[]; inList: boolean; addressable: boolean } {
  switch (element.modelType) {
    case 'SubmodelElementCollection':
      return { elements: element.value ?? [], inList: false, addressable: true };
    case 'SubmodelElementList':
      return { elements: element.value ?? [], inList: true, addressable: true };
    case 'Entity':
      return { elements: element.statements ?? [], inList: false, addressable: true };
    case 'AnnotatedRelationshipElement':
      return { elements: element.annotations ?? [], inList: false, addressable: true };
    case 'Operation':
      return {
        elements: ['inputVariables', 'outputVariables', 'inoutputVariables'].flatMap((k) => ((element[k] ?? []) as Json[]).map((v) => v.value).filter(Boolean)),
        inList: false,
        addressable: false,
      };
    default:
      return { elements: [], inList: false, addressable: true };
  }
}

const pathOf = (parentPath: string | null, element: Json, index: number, inList: boolean): string | null => {
  if (parentPath === null) return null;
  if (inList) return `${parentPath}[${index}]`;
  return parentPath ? `${parentPath}.${element.idShort}` : String(element.idShort);
};

/** Every expandable node's key (for Expand all). */
function allKeys(shell: ShellData): string[] {
  const keys: string[] = [];
  const walk = (submodelId: string, elements: Json[], parentPath: string | null, inList: boolean, prefix: string) => {
    elements.forEach((e, i) => {
      const path = pathOf(parentPath, e, i, inList);
      const key = `${submodelId}|${path ?? `${prefix}/${i}`}`;
      const children = childrenOf(e);
      if (children.elements.length) {
        keys.push(key);
        walk(submodelId, children.elements, children.addressable ? path : null, children.inList, key);
      }
    });
  };
  for (const sm of shell.submodels) {
    keys.push(sm.id);
    walk(sm.id, sm.json.submodelElements ?? [], '', false, sm.id);
  }
  return keys;
}

function Elements({ ctx, elements, parentPath, inList, prefix = ctx.submodel.id }: { ctx: TreeContext; elements: Json[]; parentPath: string | null; inList: boolean; prefix?: string }) {
  return (
    <ul className="tree">
      {elements.map((element, i) => {
        const path = pathOf(parentPath, element, i, inList);
        return <ElementNode key={i} ctx={ctx} element={element} path={path} nodeKey={`${ctx.submodel.id}|${path ?? `${prefix}/${i}`}`} label={inList ? `[${i}]${element.idShort ? ` ${element.idShort}` : ''}` : String(element.idShort ?? `[${i}]`)} />;
      })}
    </ul>
  );
}

function ElementNode({ ctx, element, path, nodeKey, label }: { ctx: TreeContext; element: Json; path: string | null; nodeKey: string; label: string }) {
  const children = childrenOf(element);
  const open = ctx.expanded.has(nodeKey);
  const access = useAccess();
  const [editing, setEditing] = useState(false);
  const editable = element.modelType === 'Property' && path !== null && access.writes(ctx.tenant);
  return (
    <li>
      <div className="tree-node">
        {children.elements.length ? (
          <button type="button" className="toggle" aria-expanded={open} onClick={() => ctx.toggle(nodeKey)}>
            {label}
          </button>
        ) : (
          <span className="name">
            <span className="leaf-pad" aria-hidden="true" />
            {label}
          </span>
        )}
        <span className="element-type">{element.modelType}</span>
        <span className="element-value">
          <ValueOf element={element} attachment={path !== null ? tenantApi(ctx.tenant, `/submodels/${b64url(ctx.submodel.id)}/submodel-elements/${encodeURIComponent(path)}/attachment`) : undefined} />
        </span>
        {editable && !editing && (
          <button type="button" className="secondary small" onClick={() => setEditing(true)} aria-label={`Edit the value of ${path}`}>
            Edit
          </button>
        )}
        {editing && path !== null && <EditValue ctx={ctx} element={element} path={path} onDone={() => setEditing(false)} />}
      </div>
      {open && children.elements.length > 0 && (
        <Elements ctx={ctx} elements={children.elements} parentPath={children.addressable ? path : null} inList={children.inList} prefix={nodeKey} />
      )}
    </li>
  );
}

const refText = (ref?: Json | null) => (ref?.keys?.length ? (ref.keys as Json[]).map((k) => `${k.type} ${k.value}`).join(' / ') : '');

/**
 * A link to content of the tenant's API: a click downloads it with the console's token (a tenant not in showcase
 * mode needs one, which a plain link would not carry); the address stays a link to copy or open elsewhere.
 */
function ContentLink({ url, name, children }: { url: string; name: string; children: ReactNode }) {
  const [problem, setProblem] = useState<string | null>(null);
  const open = async (event: MouseEvent) => {
    event.preventDefault();
    setProblem(null);
    try {
      await download(await rest(url), name);
    } catch (err) {
      setProblem(err instanceof ApiError ? err.message : 'The content could not be fetched.');
    }
  };
  return (
    <>
      <a href={url} onClick={open}>
        {children}
      </a>
      {problem && <span role="alert" className="badge bad"> {problem}</span>}
    </>
  );
}

/** A File's value: a link to its content (its attachment), or to the address it names outside. */
function FileValue({ value, attachment }: { value: string; attachment?: string }): ReactNode {
  if (/^https?:\/\//i.test(value)) {
    return (
      <a href={value} target="_blank" rel="noopener noreferrer">
        <code>{value}</code>
      </a>
    );
  }
  if (!attachment) return <code>{value}</code>;
  return (
    <ContentLink url={attachment} name={value.split('/').pop() || 'attachment'}>
      <code>{value}</code>
    </ContentLink>
  );
}

/** An element's value, typed as its kind has it; `attachment`: where a File's content is. */
function ValueOf({ element: e, attachment }: { element: Json; attachment?: string }): ReactNode {
  const typed = (type: string | undefined, value: ReactNode) => (
    <>
      {type && <span className="value-type">{type}</span>}
      {value}
    </>
  );
  const text = (v: unknown) => (v === undefined || v === null || v === '' ? <em>no value</em> : <code>{String(v)}</code>);
  switch (e.modelType) {
    case 'Property':
      return typed(e.valueType, text(e.value));
    case 'MultiLanguageProperty':
      return e.value?.length ? (
        <ul className="plain">
          {(e.value as Json[]).map((l, i) => (
            <li key={i}>
              <span className="value-type">{l.language}</span>
              {l.text}
            </li>
          ))}
        </ul>
      ) : (
        <em>no value</em>
      );
    case 'Range':
      return typed(e.valueType, (
        <>
          min {text(e.min)} max {text(e.max)}
        </>
      ));
    case 'File':
      return typed(e.contentType, e.value ? <FileValue value={String(e.value)} attachment={attachment} /> : text(e.value));
    case 'Blob':
      return typed(e.contentType, e.value ? <code>{`${String(e.value).length > 60 ? `${String(e.value).slice(0, 60)}…` : e.value} (base64)`}</code> : <em>no value</em>);
    case 'ReferenceElement':
      return e.value ? typed(e.value.type, <code>{refText(e.value)}</code>) : <em>no value</em>;
    case 'RelationshipElement':
    case 'AnnotatedRelationshipElement':
      return (
        <>
          first <code>{refText(e.first) || '—'}</code> second <code>{refText(e.second) || '—'}</code>
        </>
      );
    case 'Entity':
      return typed(e.entityType, e.globalAssetId ? <code>{e.globalAssetId}</code> : null);
    case 'SubmodelElementList':
      return typed(e.typeValueListElement + (e.valueTypeListElement ? ` of ${e.valueTypeListElement}` : ''), <>{count((e.value ?? []).length, 'item')}</>);
    case 'SubmodelElementCollection':
      return <>{count((e.value ?? []).length, 'element')}</>;
    case 'BasicEventElement':
      return typed(`${e.direction}, ${e.state}`, <code>{refText(e.observed)}</code>);
    default:
      return null;
  }
}

/** What a Property's value shows in the conflict panel. */
const valueText = (element?: Json | null) => (element ? String(element.value ?? '') : '(the element is gone)');

/** Edits one Property's value; the submodel's ETag as loaded goes along, so a change made meanwhile is not overwritten. */
function EditValue({ ctx, element, path, onDone }: { ctx: TreeContext; element: Json; path: string; onDone: () => void }) {
  const [value, setValue] = useState(String(element.value ?? ''));
  const [conflict, setConflict] = useState<ChangedField[] | null>(null);
  const { run, busy, error, setError } = useAction(async () => {
    try {
      await gql(PATCH_VALUE, { tenant: ctx.tenant, submodelId: ctx.submodel.id, idShortPath: path, value, ifMatch: ctx.submodel.etag });
    } catch (err) {
      if (!(err instanceof ApiError) || !err.isConflict) throw err;
      const now = await gql<{ submodelElement: { element: { json: Json } } }>(ELEMENT_NOW, { tenant: ctx.tenant, submodelId: ctx.submodel.id, idShortPath: path }).then(
        (d) => d.submodelElement.element.json,
        () => null,
      );
      setConflict([{ label: `${path} (${element.valueType})`, loaded: valueText(element), current: valueText(now), mine: value }]);
      return;
    }
    onDone();
    ctx.reload();
  });
  if (conflict) {
    return (
      <div className="tree-message">
        <ConflictPanel
          fields={conflict}
          onReload={() => {
            setConflict(null);
            setError(undefined);
            onDone();
            ctx.reload();
          }}
        />
      </div>
    );
  }
  return (
    <form
      className="edit-value"
      onSubmit={(e) => {
        e.preventDefault();
        run();
      }}
    >
      <Field label={`Value of ${path}`} hint={`Type ${element.valueType}`}>
        {(p) => <input {...p} value={value} onChange={(e) => setValue(e.target.value)} autoComplete="off" />}
      </Field>
      <DialogButtons label="Save" disabled={busy} onCancel={onDone} />
      {error !== undefined && (
        <div className="tree-message">
          <ErrorBox error={error} />
        </div>
      )}
    </form>
  );
}
