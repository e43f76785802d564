import { AasxError, quoteName } from './errors';
import { parseXmlPart } from './xml';

/** OPC (ISO/IEC 29500-2) pieces the AASX reader and writer share: relationship types, part names, rels parts. */

export const RELATIONSHIP_TYPES = {
  origin: ['http://admin-shell.io/aasx/relationships/aasx-origin', 'http://www.admin-shell.io/aasx/relationships/aasx-origin'],
  spec: ['http://admin-shell.io/aasx/relationships/aas-spec', 'http://www.admin-shell.io/aasx/relationships/aas-spec'],
  supplementary: ['http://admin-shell.io/aasx/relationships/aas-suppl', 'http://www.admin-shell.io/aasx/relationships/aas-suppl'],
  thumbnail: ['http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail'],
} as const;

export const RELATIONSHIPS_NAMESPACE = 'http://schemas.openxmlformats.org/package/2006/relationships';
export const CONTENT_TYPES_NAMESPACE = 'http://schemas.openxmlformats.org/package/2006/content-types';
export const RELATIONSHIPS_CONTENT_TYPE = 'application/vnd.openxmlformats-package.relationships+xml';
export const CONTENT_TYPES_PART = '/[Content_Types].xml';
export const PACKAGE_RELS_PART = '/_rels/.rels';

export interface Relationship {
  id: string;
  type: string;
  target: string;
  external: boolean;
}

/** The rels part that holds the relationships of a source part ("/" is the package itself). */
export function relsPartOf(sourcePart: string): string {
  if (sourcePart === '/') return PACKAGE_RELS_PART;
  const slash = sourcePart.lastIndexOf('/');
  return `${sourcePart.slice(0, slash)}/_rels/${sourcePart.slice(slash + 1)}.rels`;
}

/**
 * A relationship target resolved against its source part, as OPC says (RFC 3986 reference resolution): a
 * leading "/" is package-absolute, otherwise relative to the source part's folder; percent-escapes decoded.
 * Undefined when the target is not a part of this package (an absolute URI).
 */
export function resolveTarget(sourcePart: string, target: string): string | undefined {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(target)) return undefined;
  const base = new URL(sourcePart, 'http://package.invalid/');
  const resolved = new URL(target, base);
  if (resolved.host !== 'package.invalid') return undefined;
  try {
    return decodeURIComponent(resolved.pathname);
  } catch {
    return resolved.pathname;
  }
}

export function parseRelationships(text: string, partName: string, warnings: string[]): Relationship[] {
  const relationships: Relationship[] = [];
  parseXmlPart(text, partName, (element) => {
    if (element.depth === 0 && element.local !== 'Relationships') {
      throw new AasxError(`Part ${quoteName(partName)} is not a relationships part (root element ${element.local})`);
    }
    if (element.depth !== 1 || element.local !== 'Relationship') return;
    const { Id: id = '', Type: type, Target: target, TargetMode: mode } = element.attributes;
    if (!type || target === undefined) {
      warnings.push(`A relationship in ${quoteName(partName)} lacks its Type or Target and was ignored`);
      return;
    }
    relationships.push({ id, type, target, external: mode === 'External' });
  });
  return relationships;
}

export interface ContentTypes {
  defaults: Map<string, string>;
  overrides: Map<string, string>;
}

export function parseContentTypes(text: string): ContentTypes {
  const defaults = new Map<string, string>();
  const overrides = new Map<string, string>();
  parseXmlPart(text, CONTENT_TYPES_PART, (element) => {
    if (element.depth === 0 && element.local !== 'Types') {
      throw new AasxError(`Part ${quoteName(CONTENT_TYPES_PART)} is not a content types part (root element ${element.local})`);
    }
    if (element.depth !== 1) return;
    const { Extension: extension, PartName: partName, ContentType: contentType } = element.attributes;
    if (element.local === 'Default' && extension !== undefined && contentType) {
      defaults.set(extension.toLowerCase(), contentType);
    } else if (element.local === 'Override' && partName && contentType) {
      overrides.set(resolveTarget('/', partName) ?? partName, contentType);
    }
  });
  return { defaults, overrides };
}

/**
 * The content type of a part: its Override, else the Default of its extension. OPC compares both
 * case-insensitively (ASCII), so an exact Override match wins, then one that differs only in case.
 */
export function contentTypeOf(types: ContentTypes, partName: string): string | undefined {
  const exact = types.overrides.get(partName);
  if (exact) return exact;
  const lower = partName.toLowerCase();
  for (const [name, type] of types.overrides) if (name.toLowerCase() === lower) return type;
  const segment = partName.slice(partName.lastIndexOf('/') + 1);
  const dot = segment.lastIndexOf('.');
  return dot >= 0 ? types.defaults.get(segment.slice(dot + 1).toLowerCase()) : undefined;
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
