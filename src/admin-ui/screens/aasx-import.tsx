import { FormEvent, useEffect, useId, useRef, useState } from 'react';
import { ApiError, b64url } from '../api';
import { currentSession } from '../auth';
import { useAccess } from '../me';
import { Link, seg } from '../router';
import { ErrorBox, Field, Notice, Page, Section, Table } from '../ui';
import { TenantTabs } from './tenant-tabs';
import { count, formatBytes, sphereApi } from './tenant-data';
import './tenant-data.css';

/** The import's answer (`POST {tenant}/sphere/api/v1.0/import`): what it stored, and what it could not use. */
interface ImportResult {
  shells: { id: string; status: 'created' | 'updated' }[];
  submodels: { id: string; status: 'created' | 'updated' }[];
  conceptDescriptions: { id: string; status: 'created' | 'updated' }[];
  files: { path: string; tfp: string }[];
  warnings: string[];
  counts: {
    shells: number;
    submodels: number;
    conceptDescriptions: number;
    elements: number;
    files: number;
    warnings: Record<string, number>;
  };
}

type Progress = { phase: 'uploading'; loaded: number; total: number } | { phase: 'importing' };

/** Where the server's import is (`GET {tenant}/sphere/api/v1.0/import/progress/{id}`). */
interface ServerPhase {
  phase: 'receiving' | 'reading' | 'verifying' | 'storing' | 'done';
  elapsedMs: number;
  documents?: { done: number; of: number };
}

/** The import being sent: the id it is watched under, and the authorization it is sent with (only its sender may watch it). */
interface Watch {
  id: string;
  authorization?: string;
}

/** A random UUID (v4) to watch an import under; crypto.randomUUID is missing outside secure contexts (plain http). */
function newProgressId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** What the server is doing, in words, with its counts. */
function phaseText(status: ServerPhase | null): string {
  const docs = status?.documents;
  switch (status?.phase) {
    case 'receiving':
      return 'receiving the upload';
    case 'reading':
      return 'reading the package';
    case 'verifying':
      return `verifying its documents${docs ? ` (${docs.done} of ${docs.of})` : ''}`;
    case 'storing':
      return `storing its documents and files in one go${docs ? ` (${docs.done} of ${docs.of} documents)` : ''}`;
    case 'done':
      return 'done, sending the answer';
    default:
      return 'reading, verifying and storing it in one go';
  }
}

/**
 * Sends the package with XMLHttpRequest (fetch reports no upload progress), multipart with the part `file`, watched
 * under `watch.id`, and answers the import's result; a refusal's Result messages become an ApiError.
 */
function uploadPackage(tenant: string, file: File, watch: Watch, onProgress: (p: Progress) => void): Promise<ImportResult> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', sphereApi(tenant, `/import?progress=${watch.id}`));
    if (watch.authorization) xhr.setRequestHeader('authorization', watch.authorization);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (e) => onProgress({ phase: 'uploading', loaded: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.upload.onload = () => onProgress({ phase: 'importing' });
    xhr.onerror = () => reject(new ApiError('The server cannot be reached.', 'NETWORK'));
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON: the status says it
      }
      if (xhr.status >= 200 && xhr.status < 300 && body) return resolve(body as ImportResult);
      const messages = ((body as { messages?: { text?: string }[] } | null)?.messages ?? []).map((m) => m.text ?? '').filter(Boolean);
      reject(new ApiError(messages[0] ?? `The server answered HTTP ${xhr.status}.`, String(xhr.status), messages.length ? messages : undefined));
    };
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

/** `m:ss`, or `h:mm:ss` past an hour. */
function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1_000);
  const [h, m, s] = [Math.floor(seconds / 3_600), Math.floor((seconds % 3_600) / 60), seconds % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  return h ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

/** Imports an AASX package into the tenant, with upload progress; shows what was stored and the import's warnings. */
export function AasxImportPage({ organizationId, tenant }: { organizationId: string; tenant: string }) {
  const writes = useAccess().writes(tenant);
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [result, setResult] = useState<{ name: string; result: ImportResult } | null>(null);
  const [error, setError] = useState<unknown>();
  const progressId = useId();
  // The time since Import was pressed, counted every second while the import runs: a long one shows it moves on.
  const [startedAt, setStartedAt] = useState(0);
  const [now, setNow] = useState(0);
  const running = progress !== null;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [running]);
  const elapsed = `${formatElapsed(Math.max(0, now - startedAt))} elapsed`;
  // Once the package is sent, the server's phase, asked every second; a server that cannot tell (another replica
  // answers, the import has just ended) leaves the words general.
  const [watch, setWatch] = useState<Watch | null>(null);
  const [serverPhase, setServerPhase] = useState<ServerPhase | null>(null);
  const importing = progress?.phase === 'importing';
  useEffect(() => {
    if (!importing || !watch) return;
    let stopped = false;
    const ask = async () => {
      try {
        const res = await fetch(sphereApi(tenant, `/import/progress/${watch.id}`), { headers: watch.authorization ? { authorization: watch.authorization } : {} });
        if (!stopped && res.ok) setServerPhase((await res.json()) as ServerPhase);
      } catch {
        // not reachable now: asked again in a second
      }
    };
    void ask();
    const timer = setInterval(ask, 1_000);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [importing, watch, tenant]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!file) return;
    setError(undefined);
    setResult(null);
    setProgress({ phase: 'uploading', loaded: 0, total: file.size });
    setStartedAt(Date.now());
    setNow(Date.now());
    setServerPhase(null);
    const session = currentSession();
    const sending: Watch = { id: newProgressId(), authorization: session ? `Bearer ${session.accessToken}` : undefined };
    setWatch(sending);
    try {
      setResult({ name: file.name, result: await uploadPackage(tenant, file, sending, setProgress) });
      setFile(null);
      if (input.current) input.current.value = '';
    } catch (err) {
      setError(err);
    } finally {
      setProgress(null);
      setWatch(null);
      setServerPhase(null);
    }
  };

  const base = `/org/${organizationId}/tenants/${seg(tenant)}`;
  return (
    <Page title={`Import AASX into ${tenant}`}>
      <TenantTabs organizationId={organizationId} tenant={tenant} />
      {!writes ? (
        <Notice>Importing needs the contributor role on this tenant; you can read its data only.</Notice>
      ) : (
        <>
          <p>
            An AASX package with one shell: its shell, submodels and concept descriptions are stored (an id already stored here is overwritten), and
            the files its File elements and thumbnail name go to the tenant's files. What the package holds that cannot be used is left out and
            listed as a warning; all of it is stored in one go, or nothing is.
          </p>
          <form onSubmit={submit}>
            <Field label="AASX package" hint=".aasx file">
              {(p) => (
                <input
                  {...p}
                  ref={input}
                  type="file"
                  accept=".aasx,application/asset-administration-shell-package,application/asset-administration-shell-package+xml"
                  onChange={(e) => setFile(e.target.files?.[0] ?? null)}
                />
              )}
            </Field>
            <div className="buttons">
              <button type="submit" disabled={!file || progress !== null}>
                Import
              </button>
            </div>
          </form>
        </>
      )}
      {progress && (
        <div className="upload-progress">
          <label htmlFor={progressId}>
            {progress.phase === 'uploading'
              ? `Step 1 of 2, uploading: ${formatBytes(progress.loaded)} of ${formatBytes(progress.total)} (${elapsed})`
              : `Step 2 of 2, the server imports the package: ${phaseText(serverPhase)} (${elapsed})`}
          </label>
          {progress.phase === 'uploading' ? <progress id={progressId} max={progress.total || 1} value={progress.loaded} /> : <progress id={progressId} />}
        </div>
      )}
      {error !== undefined && (
        <>
          <h2>The package was not imported</h2>
          <ErrorBox error={error} />
        </>
      )}
      {result && <ImportReport name={result.name} result={result.result} base={base} />}
    </Page>
  );
}

function ImportReport({ name, result, base }: { name: string; result: ImportResult; base: string }) {
  const { counts } = result;
  const warningCount = Object.values(counts.warnings).reduce((a, b) => a + b, 0);
  const status = (s: string) => <span className={`badge ${s === 'created' ? 'ok' : 'warn'}`}>{s === 'created' ? 'new' : 'overwritten'}</span>;
  return (
    <>
      <Notice kind={warningCount ? 'warning' : 'success'}>
        <p>
          <strong>Imported {name}</strong>
          {warningCount ? `, with ${warningCount} warning${warningCount === 1 ? '' : 's'}: see below what was left out or differs.` : '.'}
        </p>
        <p className="counts">
          <span className="badge">{count(counts.shells, 'shell')}</span>
          <span className="badge">{count(counts.submodels, 'submodel')}</span>
          <span className="badge">{count(counts.elements, 'submodel element')}</span>
          <span className="badge">{count(counts.conceptDescriptions, 'concept description')}</span>
          <span className="badge">{count(counts.files, 'file')}</span>
        </p>
      </Notice>
      {result.warnings.length > 0 && (
        <Section title={`Warnings (${warningCount})`}>
          <p className="hint">
            By kind:{' '}
            {Object.entries(counts.warnings)
              .filter(([, n]) => n > 0)
              .map(([kind, n]) => `${kind} ${n}`)
              .join(', ')}
          </p>
          <ol className="warnings" aria-label="Import warnings">
            {result.warnings.map((w, i) => (
              <li key={i}>{w}</li>
            ))}
          </ol>
        </Section>
      )}
      <Section title="Stored">
        <Table
          caption="Shells stored"
          rowKey={(s) => s.id}
          rows={result.shells}
          empty="No shell."
          columns={[
            { label: 'Shell', cell: (s) => <Link to={`${base}/shells/${b64url(s.id)}`}>{s.id}</Link> },
            { label: 'Status', cell: (s) => status(s.status) },
          ]}
        />
        <Table
          caption="Submodels stored"
          rowKey={(s) => s.id}
          rows={result.submodels}
          empty="No submodel."
          columns={[
            { label: 'Submodel', cell: (s) => <code>{s.id}</code> },
            { label: 'Status', cell: (s) => status(s.status) },
          ]}
        />
        <Table
          caption="Concept descriptions stored"
          rowKey={(s) => s.id}
          rows={result.conceptDescriptions}
          empty="No concept description."
          columns={[
            { label: 'Concept description', cell: (s) => <code>{s.id}</code> },
            { label: 'Status', cell: (s) => status(s.status) },
          ]}
        />
        <Table
          caption="Files stored"
          rowKey={(f) => f.tfp}
          rows={result.files}
          empty="No file."
          columns={[
            { label: 'In the package', cell: (f) => <code>{f.path}</code> },
            { label: 'Stored as', cell: (f) => <code>{f.tfp}</code> },
          ]}
        />
      </Section>
    </>
  );
}
