/**
 * How the values of File elements and thumbnails name the files of a package: the part name (`/aasx/files/a.pdf`)
 * in any of the spellings tools write (`file:///aasx/...`, relative, backslashes, percent-encoded).
 */

/** A link elsewhere (`https:`, `urn:`, a tfp `file:` of this server) is not a part of the package. */
export const isExternal = (value: string) => /^[A-Za-z][A-Za-z0-9+.-]*:/.test(value) && !/^file:\/\/\/?aasx\//i.test(value);

/** The part name a File value names: absolute, `/`-separated, decoded; undefined when it cannot be one. */
export function partName(value: string): string | undefined {
  let path = value.replace(/^file:\/\//i, '').replace(/\\/g, '/');
  try {
    path = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  if (!path.startsWith('/')) path = `/${path}`;
  if (path.split('/').some((segment) => segment === '..' || segment === '.')) return undefined;
  return path;
}
