/** The Content-Security-Policy directive that keeps a page of ours out of every other page's frames (clickjacking). */
export const NO_FRAMING = "frame-ancestors 'none'";

/**
 * Headers on every answer of the server: a browser takes the media type as sent (no sniffing an upload into
 * HTML or script) and frames none of them, also where it knows no CSP (`X-Frame-Options`). A page or download
 * with a policy of its own replaces the Content-Security-Policy and keeps {@link NO_FRAMING} in it.
 */
export const BASELINE_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': NO_FRAMING,
};
