import type { Context as KoaContext } from 'koa';
import { NO_FRAMING } from '../src/common/security-headers';

/**
 * The Content-Security-Policy of every download: content that is the uploader's (an uploaded `text/html`, an SVG
 * with a script) loads nothing, runs in no origin of ours (`sandbox`) and is framed by no page.
 */
export const DOWNLOAD_CSP = `default-src 'none'; sandbox; ${NO_FRAMING}`;

/**
 * The headers of every download (files, attachments, thumbnails, packages, serializations): the media type, the
 * file name where the content has one, and what keeps a browser from sniffing another type or running the
 * content on this origin (`X-Content-Type-Options: nosniff`, {@link DOWNLOAD_CSP}).
 */
export function setDownloadHeaders(ctx: KoaContext, contentType: string, fileName?: string): void {
  ctx.type = contentType;
  if (fileName !== undefined) ctx.set('Content-Disposition', contentDisposition(fileName));
  ctx.set({ 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': DOWNLOAD_CSP });
}

/**
 * `attachment` with the name, as ASCII fallback and as RFC 8187 UTF-8: a name with a character outside Latin-1
 * (`€`) cannot go into a header as it is (Node refuses it: a 500).
 */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
