import { parseTfp } from '../../files/tfp';

/**
 * How the values of File elements and thumbnails name the files of a package: the part name (`/aasx/files/a.pdf`)
 * in any of the spellings tools write (`file:///aasx/...`, relative, backslashes, percent-encoded).
 */

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/**
 * A value that is no part name: a link elsewhere (`https:`, `urn:`, `mailto:`), a file URI of another host
 * (`file://server/share/x.pdf`), or a tfp of this server (`file:/sphere/...`). File values and thumbnails that are
 * not links are read as part names of the package (`partName`).
 */
export function isExternal(value: string): boolean {
  const scheme = SCHEME.exec(value)?.[1];
  // A drive letter (`C:\docs\x.pdf`) is a path of the author's machine, no scheme: it names no part (a warning).
  if (scheme === undefined || /^[A-Za-z]:[\\/]/.test(value)) return false;
  if (scheme.toLowerCase() !== 'file') return true;
  if (parseTfp(value)) return true;
  const authority = /^file:\/\/([^/]*)/i.exec(value)?.[1];
  return authority !== undefined && authority !== '' && authority.toLowerCase() !== 'localhost';
}

/**
 * The part name a File value names: package-absolute, `/`-separated, percent-decoded, dot segments removed;
 * undefined when it cannot be one (it climbs above the package root). File URIs per RFC 8089 name the part their
 * path names (`file:/aasx/x.pdf`, `file:///aasx/x.pdf`, `file://localhost/aasx/x.pdf`; a query or fragment is no
 * part of it). A relative path (`aasx/x.pdf`, `./aasx/x.pdf`) is taken from the package root, as AASX tools write
 * and read them: a File value is a path in the package, not an OPC relationship of the spec part. Backslashes are
 * separators.
 */
export function partName(value: string): string | undefined {
  let path = value;
  if (/^file:/i.test(path)) path = path.replace(/^file:(\/\/[^/]*)?/i, '').replace(/[?#].*$/, '');
  path = path.replace(/\\/g, '/');
  try {
    path = decodeURIComponent(path);
  } catch {
    // A lone "%": the name as written.
  }
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.pop() === undefined) return undefined;
    } else {
      segments.push(segment);
    }
  }
  return segments.length ? `/${segments.join('/')}` : undefined;
}
