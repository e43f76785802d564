import { useState } from 'react';
import { config } from '../config';
import { Field } from '../ui';

/**
 * Small pieces the tenant data screens (shells, shell, files, AASX import) share: where the tenant's own services
 * beside the AAS API are, sizes in words, paging.
 */

/** `{base}/tenants/{tenant}/sphere/api/v1.0{path}`: the tenant's file repository and AASX import (path-based). */
export const sphereApi = (tenant: string, path: string) => `${config.base}/tenants/${encodeURIComponent(tenant)}/sphere/api/v1.0${path}`;

/** A byte count for people: 512 bytes, 1.5 KB, 2.3 MB. */
export function formatBytes(size: number): string {
  if (size < 1024) return `${size} byte${size === 1 ? '' : 's'}`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = size / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** Keyset paging in a screen: the cursors of the pages before the current one, for Previous. */
export interface Paging {
  /** The cursor of the page shown (undefined: the first). */
  cursor?: string;
  /** The cursors of the pages before it, oldest first. */
  before: (string | undefined)[];
}

export const firstPage: Paging = { before: [] };
export const nextPage = (p: Paging, cursor: string): Paging => ({ cursor, before: [...p.before, p.cursor] });
export const previousPage = (p: Paging): Paging => ({ cursor: p.before[p.before.length - 1], before: p.before.slice(0, -1) });

export const PAGE_SIZES = [10, 25, 50, 100];

/** A screen's paging: the page shown and the page size; a new page size starts again at the first page. */
export function usePaging(initialSize = 25) {
  const [pageSize, setPageSize] = useState(initialSize);
  const [paging, setPaging] = useState<Paging>(firstPage);
  return {
    paging,
    pageSize,
    onPaging: setPaging,
    onPageSize: (size: number) => {
      setPageSize(size);
      setPaging(firstPage);
    },
    restart: () => setPaging(firstPage),
  };
}

/** Previous / Next and the page size under a paged list (`label` names what is paged, for screen readers). */
export function Pager({ label, cursor, pages }: {
  label: string;
  /** The next page's cursor, absent on the last page. */
  cursor?: string | null;
  pages: ReturnType<typeof usePaging>;
}) {
  const { paging, pageSize, onPaging, onPageSize } = pages;
  const page = paging.before.length + 1;
  return (
    <nav className="pager" aria-label={`Pages of ${label}`}>
      <button type="button" className="secondary" disabled={!paging.before.length} onClick={() => onPaging(previousPage(paging))}>
        Previous page
      </button>
      <span aria-live="polite">Page {page}</span>
      <button type="button" className="secondary" disabled={!cursor} onClick={() => cursor && onPaging(nextPage(paging, cursor))}>
        Next page
      </button>
      <Field label="Per page">
        {(p) => (
          <select {...p} value={pageSize} onChange={(e) => onPageSize(Number(e.target.value))}>
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        )}
      </Field>
    </nav>
  );
}

/** `1 shell`, `2 shells`. */
export const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
