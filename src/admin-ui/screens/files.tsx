import { useRef, useState } from 'react';
import { download, gql, rest } from '../api';
import { useAccess } from '../me';
import { ConfirmDialog, ErrorBox, Field, Loaded, Notice, Page, Section, Table, formatTime, useAction, useLoad } from '../ui';
import { TenantTabs } from './tenant-tabs';
import { Pager, formatBytes, sphereApi, usePaging } from './tenant-data';
import './tenant-data.css';

interface StoredFile {
  tfp: string;
  fileName: string;
  contentType: string;
  size: number;
  sha256: string;
  displayName?: string | null;
  classification?: string | null;
  attributes: { key: string; value: string }[];
  createdAt: string;
  updatedAt: string;
}

const FILES = `query Files($tenant: String!, $limit: Int!, $cursor: String) {
  files(tenant: $tenant, limit: $limit, cursor: $cursor) {
    result { tfp fileName contentType size sha256 displayName classification attributes { key value } createdAt updatedAt }
    pagingMetadata { cursor }
  }
}`;

const DELETE_FILE = `mutation DeleteFile($tenant: String!, $tfp: String!) { deleteFile(tenant: $tenant, tfp: $tfp) }`;

/** The tenant's file repository: its files with their metadata, paged; download; upload and delete for contributors. */
export function FilesPage({ organizationId, tenant }: { organizationId: string; tenant: string }) {
  const writes = useAccess().writes(tenant);
  const pages = usePaging();
  const { paging, pageSize } = pages;
  const [deleting, setDeleting] = useState<StoredFile | null>(null);
  const [notice, setNotice] = useState('');
  const state = useLoad(
    async () => (await gql<{ files: { result: StoredFile[]; pagingMetadata: { cursor?: string | null } } }>(FILES, { tenant, limit: pageSize, cursor: paging.cursor })).files,
    [tenant, pageSize, paging],
  );
  const fetchFile = useAction(async (file: StoredFile) => {
    await download(await rest(sphereApi(tenant, `/files/${encodeURIComponent(file.tfp)}`)), file.fileName);
  });
  return (
    <Page title={`Files of ${tenant}`}>
      <TenantTabs organizationId={organizationId} tenant={tenant} />
      <p>
        Documents and pictures the tenant's shells and submodels name (File elements, thumbnails): AASX imports store a package's files here, and
        each is addressed by its path (<code>file:/sphere/…</code>).
      </p>
      {notice && <Notice kind="success">{notice}</Notice>}
      {writes && (
        <Section title="Upload a file">
          <Upload
            tenant={tenant}
            onUploaded={(file) => {
              setNotice(`Uploaded ${file.fileName}: its path is ${file.tfp}`);
              pages.restart();
              state.reload();
            }}
          />
        </Section>
      )}
      <Section title="Files">
        <ErrorBox error={fetchFile.error} />
        <Loaded state={state}>
          {(page) => (
            <>
              <Table
                caption="Files of this tenant"
                rowKey={(f) => f.tfp}
                rows={page.result}
                empty="This tenant has no files yet."
                columns={[
                  {
                    label: 'File',
                    cell: (f) => (
                      <>
                        <strong>{f.displayName || f.fileName}</strong>
                        {f.displayName && <div className="hint">{f.fileName}</div>}
                        <div>
                          <code>{f.tfp}</code>
                        </div>
                      </>
                    ),
                  },
                  { label: 'Content type', cell: (f) => <code>{f.contentType}</code> },
                  { label: 'Size', cell: (f) => formatBytes(f.size) },
                  { label: 'Created', cell: (f) => formatTime(f.createdAt) },
                  { label: 'Updated', cell: (f) => formatTime(f.updatedAt) },
                  {
                    label: 'Metadata',
                    cell: (f) => (
                      <ul className="plain">
                        {f.classification && <li>VDI 2770 class {f.classification}</li>}
                        {f.attributes.map((a) => (
                          <li key={a.key}>
                            {a.key}: {a.value}
                          </li>
                        ))}
                        <li>
                          SHA-256 <code>{f.sha256.slice(0, 12)}…</code>
                        </li>
                      </ul>
                    ),
                  },
                  {
                    label: 'Actions',
                    cell: (f) => (
                      <div className="actions">
                        <button type="button" className="secondary small" onClick={() => fetchFile.run(f)} disabled={fetchFile.busy} aria-label={`Download ${f.fileName}`}>
                          Download
                        </button>
                        {writes && (
                          <button type="button" className="secondary small" onClick={() => setDeleting(f)} aria-label={`Delete ${f.fileName}`}>
                            Delete
                          </button>
                        )}
                      </div>
                    ),
                  },
                ]}
              />
              <Pager label="files" cursor={page.pagingMetadata.cursor} pages={pages} />
            </>
          )}
        </Loaded>
      </Section>
      <ConfirmDialog
        title="Delete this file?"
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        confirmLabel="Delete the file"
        onConfirm={async () => {
          const file = deleting!;
          await gql(DELETE_FILE, { tenant, tfp: file.tfp });
          setNotice(`Deleted ${file.fileName}.`);
          state.reload();
        }}
      >
        <p>
          <strong>{deleting?.fileName}</strong> and its content are deleted for good. File elements and thumbnails that name{' '}
          <code>{deleting?.tfp}</code> keep naming it and then find nothing.
        </p>
      </ConfirmDialog>
    </Page>
  );
}

/** Uploads one file (multipart, the part `file`) to the file repository, with an optional display name. */
function Upload({ tenant, onUploaded }: { tenant: string; onUploaded: (file: { tfp: string; fileName: string }) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [chosen, setChosen] = useState<File | null>(null);
  const [displayName, setDisplayName] = useState('');
  const { run, busy, error } = useAction(async () => {
    if (!chosen) return;
    const form = new FormData();
    if (displayName.trim()) form.append('displayName', displayName.trim());
    form.append('file', chosen, chosen.name);
    const res = await rest(sphereApi(tenant, '/files'), { method: 'POST', body: form });
    const stored = (await res.json()) as { tfp: string; fileName: string };
    setChosen(null);
    setDisplayName('');
    if (input.current) input.current.value = '';
    onUploaded(stored);
  });
  return (
    <form
      className="inline"
      onSubmit={(e) => {
        e.preventDefault();
        run();
      }}
    >
      <Field label="File">{(p) => <input {...p} ref={input} type="file" onChange={(e) => setChosen(e.target.files?.[0] ?? null)} />}</Field>
      <Field label="Display name (optional)">{(p) => <input {...p} value={displayName} onChange={(e) => setDisplayName(e.target.value)} />}</Field>
      <div className="buttons">
        <button type="submit" disabled={busy || !chosen}>
          {busy ? 'Uploading…' : 'Upload'}
        </button>
      </div>
      <ErrorBox error={error} />
    </form>
  );
}
