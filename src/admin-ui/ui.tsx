import { ReactNode, useCallback, useEffect, useId, useRef, useState } from 'react';
import { ApiError } from './api';
import { hasNavigated } from './router';

/**
 * The page's title: in the tab, as its one h1, and focused when the user moved to this page within the app (screen
 * readers announce it). On a fresh load the focus stays at the top, where the skip link is.
 */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Admin console`;
    if (hasNavigated()) heading.current?.focus();
  }, [title]);
  return (
    <>
      <div className="page-head">
        <h1 tabIndex={-1} ref={heading}>
          {title}
        </h1>
        {actions && <div className="actions">{actions}</div>}
      </div>
      {children}
    </>
  );
}

export function Section({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  const id = useId();
  return (
    <section aria-labelledby={id} className="section">
      <div className="section-head">
        <h2 id={id}>{title}</h2>
        {actions && <div className="actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}

export interface Column<T> {
  label: string;
  cell: (row: T) => ReactNode;
}

/** A table that scrolls sideways on a narrow screen rather than squeezing its columns. */
export function Table<T>({ caption, columns, rows, rowKey, empty }: { caption: string; columns: Column<T>[]; rows: T[]; rowKey: (row: T) => string; empty: string }) {
  if (!rows.length) return <p className="empty">{empty}</p>;
  return (
    <div className="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" key={c.label}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.label}>{c.cell(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A labelled form control: `children` gets the id through the render function. */
export function Field({ label, hint, children }: { label: string; hint?: string; children: (props: { id: string; 'aria-describedby'?: string }) => ReactNode }) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, ...(hint ? { 'aria-describedby': hintId } : {}) })}
      {hint && (
        <small id={hintId} className="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

export function Checkbox({ label, checked, onChange, hint }: { label: string; checked: boolean; onChange: (value: boolean) => void; hint?: string }) {
  const id = useId();
  return (
    <div className="field checkbox">
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} aria-describedby={hint ? `${id}-hint` : undefined} />
      <label htmlFor={id}>{label}</label>
      {hint && (
        <small id={`${id}-hint`} className="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const messages = error instanceof ApiError ? error.messages : [error instanceof Error ? error.message : String(error)];
  return (
    <div className="alert error" role="alert">
      {messages.map((m, i) => (
        <p key={i}>{m}</p>
      ))}
    </div>
  );
}

export function Notice({ children, kind = 'info' }: { children: ReactNode; kind?: 'info' | 'success' | 'warning' }) {
  return (
    <div className={`alert ${kind}`} role={kind === 'info' ? 'note' : 'status'}>
      {children}
    </div>
  );
}

/** A modal dialog (the browser's own `<dialog>`: focus stays inside, Escape closes it). */
export function Dialog({ title, open, onClose, children }: { title: string; open: boolean; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby={id} onClose={onClose} onCancel={onClose}>
      {open && (
        <>
          <h2 id={id}>{title}</h2>
          {children}
        </>
      )}
    </dialog>
  );
}

/** The buttons that end a dialog's form: its submit button, and Cancel. */
export function DialogButtons({ label, disabled, onCancel, danger }: { label: string; disabled?: boolean; onCancel: () => void; danger?: boolean }) {
  return (
    <div className="buttons">
      <button type="submit" className={danger ? 'danger' : undefined} disabled={disabled}>
        {label}
      </button>
      <button type="button" className="secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

/** A dialog that asks before something is lost for good; `confirmWord`, when given, must be typed first. */
export function ConfirmDialog({
  title,
  open,
  onClose,
  onConfirm,
  children,
  confirmLabel,
  confirmWord,
}: {
  title: string;
  open: boolean;
  onClose: () => void;
  onConfirm: () => Promise<void>;
  children: ReactNode;
  confirmLabel: string;
  confirmWord?: string;
}) {
  const [typed, setTyped] = useState('');
  const { run, busy, error } = useAction(async () => {
    await onConfirm();
    onClose();
  });
  useEffect(() => setTyped(''), [open]);
  return (
    <Dialog title={title} open={open} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          run();
        }}
      >
        {children}
        {confirmWord && (
          <Field label={`Type ${confirmWord} to confirm`}>{(p) => <input {...p} value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />}</Field>
        )}
        <ErrorBox error={error} />
        <DialogButtons label={confirmLabel} disabled={busy || (confirmWord !== undefined && typed !== confirmWord)} onCancel={onClose} danger />
      </form>
    </Dialog>
  );
}

/** Loads something when `deps` change; `reload` loads it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data?: T; error?: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => current && setState({ data, loading: false }),
      (error) => current && setState({ error, loading: false }),
    );
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...state, reload };
}

/** Runs a write: `busy` while it runs, `error` when it failed. */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async (...args: A) => {
    setBusy(true);
    setError(undefined);
    try {
      await action(...args);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, setError };
}

/** Loading, an error, or the content. */
export function Loaded<T>({ state, children }: { state: { data?: T; error?: unknown; loading: boolean }; children: (data: T) => ReactNode }) {
  if (state.error) return <ErrorBox error={state.error} />;
  if (state.data === undefined) return <p aria-busy="true">Loading…</p>;
  return <>{children(state.data)}</>;
}

export interface ChangedField {
  label: string;
  /** As loaded when the edit began. */
  loaded: string;
  /** As it is on the server now. */
  current: string;
  /** What the edit wanted. */
  mine: string;
}

/**
 * Someone else changed it after it was loaded (the ETag no longer matches): nothing was written. Shows what
 * changed and offers to reload; the user's own edit is shown so it can be made again on the new version.
 */
export function ConflictPanel({ fields, onReload }: { fields: ChangedField[]; onReload: () => void }) {
  const changed = fields.filter((f) => f.loaded !== f.current);
  return (
    <div className="alert warning conflict" role="alert">
      <p>
        <strong>Changed by someone else since you opened it.</strong> Your edit was not saved.
      </p>
      {changed.length ? (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">What changed</caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">When you opened it</th>
                <th scope="col">Now</th>
                <th scope="col">Your edit</th>
              </tr>
            </thead>
            <tbody>
              {changed.map((f) => (
                <tr key={f.label}>
                  <th scope="row">{f.label}</th>
                  <td>{f.loaded || '—'}</td>
                  <td>{f.current || '—'}</td>
                  <td>{f.mine || '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p>The fields shown here are unchanged; something else about it changed.</p>
      )}
      <div className="buttons">
        <button type="button" onClick={onReload}>
          Reload the current version
        </button>
      </div>
    </div>
  );
}

/** A value with a copy button (for ids and the one-time secret). */
export function Copyable({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const id = useId();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      // No clipboard (plain http): the value is selected for Ctrl+C instead.
      const range = document.createRange();
      const node = document.getElementById(id);
      if (node) {
        range.selectNodeContents(node);
        getSelection()?.removeAllRanges();
        getSelection()?.addRange(range);
      }
    }
  };
  return (
    <span className="copyable">
      <code id={id} data-copy={label}>
        {value}
      </code>
      <button type="button" className="secondary small" onClick={copy} aria-label={`Copy ${label}`}>
        {copied ? 'Copied' : 'Copy'}
      </button>
    </span>
  );
}

export const formatTime = (iso?: string | null) => (iso ? new Date(iso).toLocaleString() : '—');
