import type { Readable } from 'node:stream';
import { AasxError, quoteName } from './errors';
import {
  CONTENT_TYPES_PART,
  contentTypeOf,
  type ContentTypes,
  parseContentTypes,
  parseRelationships,
  RELATIONSHIP_TYPES,
  type Relationship,
  relsPartOf,
  resolveTarget,
} from './opc';
import { decodeXmlText } from './xml';
import {
  bufferSource,
  entryStream,
  fileSource,
  percentDecode,
  readCentralDirectory,
  readEntry,
  type ZipEntry,
  type ZipLimits,
  type ZipSource,
} from './zip';

export interface AasxLimits extends ZipLimits {
  /** Bytes of one spec part, which is read into memory as text. */
  maxSpecBytes: number;
  /** Bytes of [Content_Types].xml and of each .rels part. */
  maxXmlPartBytes: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_AASX_LIMITS: Readonly<AasxLimits> = Object.freeze({
  maxEntries: 10_000,
  maxEntryBytes: 1024 * MiB,
  maxTotalBytes: 2048 * MiB,
  maxCompressionRatio: 100,
  ratioGraceBytes: 1 * MiB,
  maxSpecBytes: 256 * MiB,
  maxXmlPartBytes: 4 * MiB,
});

export interface AasxPart {
  /** The part name: package-absolute, percent-decoded ("/aasx/files/manual.pdf"). */
  path: string;
  /** From [Content_Types].xml; "application/octet-stream" (with a warning) when it names none. */
  contentType: string;
  /** Uncompressed size as declared; reading fails if the entry inflates to anything else. */
  size: number;
  /** The bytes, inflated and checked (size, CRC-32); errors are AasxError. */
  stream(): Readable;
  /** The same stream behind a promise: an AasxPart is a PackageFile of the import. */
  open(): Promise<Readable>;
  bytes(): Promise<Buffer>;
}

export interface AasxSpecPart extends AasxPart {
  format: 'json' | 'xml';
  /** The part decoded as text (UTF-8, or UTF-16 with a byte order mark), at most maxSpecBytes. */
  text(): Promise<string>;
}

export interface AasxPackage {
  /** The aasx-origin part. */
  origin: string;
  /** The spec parts the aasx-origin names: none in an empty package, several where a tool wrote several. */
  specs: AasxSpecPart[];
  /** Targets of the spec parts' aas-suppl relationships that exist in the package, once each. */
  files: AasxPart[];
  /** The package thumbnail: reported for completeness; it is no part of the environment. */
  thumbnail?: AasxPart;
  /** Anything odd that did not stop the reading: a dangling supplementary relationship, a missing content type. */
  warnings: string[];
  /**
   * Overrides of [Content_Types].xml whose part name matches a part only when case is ignored (`/AASX/Data.json`
   * for `/aasx/data.json`): OPC compares case-insensitively and their content types are used, but AASX paths are
   * case-sensitive (platform spec, Import 6). Each is also in `warnings`; a strict caller refuses the package.
   */
  contentTypeCaseMismatches: string[];
  /**
   * Any data part by exact part name (an AAS File value such as "/aasx/files/x.pdf", percent-escaped or not),
   * whether or not a relationship points at it. Undefined when absent.
   */
  part(path: string): AasxPart | undefined;
}

/**
 * Reads and validates an AASX package (a file path, read lazily from disk, or a Buffer). The central directory,
 * content types and relationships are read at once; spec parts and supplementary files are inflated when asked.
 * Every problem with the package is an AasxError, for the caller to answer 400.
 */
export async function readAasxPackage(input: Buffer | string, limits: Partial<AasxLimits> = {}): Promise<AasxPackage> {
  const effective: AasxLimits = { ...DEFAULT_AASX_LIMITS, ...limits };
  const source = typeof input === 'string' ? await fileSource(input) : bufferSource(input);
  const entries = await readCentralDirectory(source, effective);
  return new PackageReader(source, entries, effective).read();
}

class PackageReader {
  private readonly parts = new Map<string, ZipEntry>();
  private readonly lowerCaseParts = new Map<string, string>();
  private readonly warnings: string[] = [];
  private types: ContentTypes = { defaults: new Map(), overrides: new Map() };

  constructor(
    private readonly source: ZipSource,
    entries: ZipEntry[],
    private readonly limits: AasxLimits,
  ) {
    for (const entry of entries) {
      if (entry.name.endsWith('/')) continue;
      const path = `/${percentDecode(entry.name)}`;
      if (this.parts.has(path)) throw new AasxError(`The package has two entries named ${quoteName(path)}`);
      const lower = path.toLowerCase();
      const other = this.lowerCaseParts.get(lower);
      if (other !== undefined) {
        throw new AasxError(`The package has parts ${quoteName(other)} and ${quoteName(path)}, which differ only in case (OPC forbids this)`);
      }
      this.parts.set(path, entry);
      this.lowerCaseParts.set(lower, path);
    }
  }

  async read(): Promise<AasxPackage> {
    const contentTypes = this.find(CONTENT_TYPES_PART);
    if (!contentTypes) throw new AasxError(this.missing('The package has no', CONTENT_TYPES_PART, 'part'));
    this.types = parseContentTypes(await this.xmlText(contentTypes));
    const caseMismatches: string[] = [];
    for (const name of this.types.overrides.keys()) {
      const variant = this.find(name) ? undefined : this.caseVariant(name);
      if (variant === undefined) continue;
      caseMismatches.push(
        `[Content_Types].xml names ${quoteName(name)}, which differs in case from the part ${quoteName(variant)}; its paths are case-sensitive and must match the package's (its content type was used all the same)`,
      );
    }
    this.warnings.push(...caseMismatches);

    const packageRels = await this.relationships('/');
    if (!packageRels) throw new AasxError(this.missing('The package has no package relationships part', '/_rels/.rels'));
    // The origin part may be empty or absent; its relationships part is what matters.
    const origins = this.targets('/', packageRels, RELATIONSHIP_TYPES.origin, (path) => !!this.find(path) || !!this.find(relsPartOf(path)));
    if (origins.found.length === 0) {
      throw new AasxError(
        origins.ignored.length
          ? `The package's aasx-origin relationship names no part of the package: ${origins.ignored.join('; ')}`
          : 'The package has no aasx-origin relationship in "/_rels/.rels" (type http://admin-shell.io/aasx/relationships/aasx-origin)',
      );
    }
    this.warnings.push(...origins.ignored);
    if (origins.found.length > 1) this.warnings.push(`The package has ${origins.found.length} aasx-origin relationships; the first, ${quoteName(origins.found[0])}, was used`);
    const origin = origins.found[0];
    if (!this.find(origin)) this.warnings.push(this.missing('The aasx-origin part', origin, 'is missing'));

    const originRels = await this.relationships(origin);
    const specTargets = originRels ? this.targets(origin, originRels, RELATIONSHIP_TYPES.spec) : { found: [], ignored: [] };
    if (specTargets.found.length === 0 && specTargets.ignored.length) {
      throw new AasxError(
        `The aas-spec relationship of the aasx-origin part ${quoteName(origin)} names no part of the package, so the package has no spec part: ${specTargets.ignored.join('; ')}`,
      );
    }
    // No aas-spec relationship at all: an empty package (as the BaSyx Python SDK writes and reads one), no error.
    if (specTargets.found.length === 0) {
      this.warnings.push(`The aasx-origin part ${quoteName(origin)} has no aas-spec relationship (in ${quoteName(relsPartOf(origin))}): the package holds no AAS content`);
    }
    this.warnings.push(...specTargets.ignored);
    const specs = [...new Set(specTargets.found)].map((path) => this.specPart(path));

    const files = new Map<string, AasxPart>();
    for (const spec of specs) {
      const rels = await this.relationships(spec.path);
      for (const path of rels ? this.internalTargets(spec.path, rels, RELATIONSHIP_TYPES.supplementary) : []) {
        if (files.has(path)) continue;
        const entry = this.find(path);
        if (entry) files.set(path, this.dataPart(path, entry));
        else this.warnings.push(this.missing(`The supplementary file referenced by ${quoteName(spec.path)},`, path, 'is missing'));
      }
    }

    let thumbnail: AasxPart | undefined;
    const [thumbnailPath] = this.internalTargets('/', packageRels, RELATIONSHIP_TYPES.thumbnail);
    if (thumbnailPath) {
      const entry = this.find(thumbnailPath);
      if (entry) thumbnail = this.dataPart(thumbnailPath, entry);
      else this.warnings.push(this.missing('The thumbnail', thumbnailPath, 'is missing'));
    }

    return {
      origin,
      specs,
      files: [...files.values()],
      thumbnail,
      warnings: this.warnings,
      contentTypeCaseMismatches: caseMismatches,
      part: (path) => {
        const name = path.startsWith('/') ? path : `/${path}`;
        for (const candidate of [name, percentDecode(name)]) {
          const entry = this.parts.get(candidate);
          if (entry) return this.dataPart(candidate, entry, false);
        }
        return undefined;
      },
    };
  }

  private specPart(path: string): AasxSpecPart {
    const entry = this.find(path);
    if (!entry) throw new AasxError(this.missing('The spec part', path, 'referenced by the aasx-origin is missing'));
    const part = this.dataPart(path, entry, false);
    const format = specFormat(path, part.contentType);
    if (!format) {
      throw new AasxError(`The spec part ${quoteName(path)} is neither JSON nor XML (content type ${quoteName(part.contentType)})`);
    }
    if (entry.size > this.limits.maxSpecBytes) {
      throw new AasxError(`The spec part ${quoteName(path)} is ${entry.size} bytes; at most ${this.limits.maxSpecBytes} are allowed`);
    }
    return {
      ...part,
      format,
      text: async () => decodeXmlText(await readEntry(this.source, entry, this.limits.maxSpecBytes, 'The spec part')),
    };
  }

  private dataPart(path: string, entry: ZipEntry, warnWithoutType = true): AasxPart {
    let contentType = contentTypeOf(this.types, path);
    if (!contentType) {
      if (warnWithoutType) this.warnings.push(`No content type is declared for ${quoteName(path)}; application/octet-stream is assumed`);
      contentType = 'application/octet-stream';
    }
    return {
      path,
      contentType,
      size: entry.size,
      stream: () => entryStream(this.source, entry),
      open: async () => entryStream(this.source, entry),
      bytes: () => readEntry(this.source, entry, this.limits.maxEntryBytes, 'The part'),
    };
  }

  /** The relationships of a source part, or undefined when it has no rels part. */
  private async relationships(sourcePart: string): Promise<Relationship[] | undefined> {
    const relsPart = relsPartOf(sourcePart);
    const entry = this.find(relsPart);
    if (!entry) {
      const variant = this.caseVariant(relsPart);
      if (variant) throw new AasxError(this.missing('The relationships part', relsPart, 'is missing'));
      return undefined;
    }
    return parseRelationships(await this.xmlText(entry), relsPart, this.warnings);
  }

  /** The targets of `types` that are parts of this package; what was ignored is a warning. */
  private internalTargets(sourcePart: string, relationships: Relationship[], types: readonly string[]): string[] {
    const { found, ignored } = this.targets(sourcePart, relationships, types);
    this.warnings.push(...ignored);
    return found;
  }

  /**
   * The targets of the relationships of `types`, resolved against the source part, and why the others were
   * ignored. A relationship marked `TargetMode="External"` is read as internal, with a warning, when its target
   * names a part of this package (`present`: the part exists) — several tools write the origin, spec and
   * supplementary relationships so. A target outside the package (an absolute URI) is ignored.
   */
  private targets(
    sourcePart: string,
    relationships: Relationship[],
    types: readonly string[],
    present: (path: string) => boolean = (path) => !!this.find(path),
  ): { found: string[]; ignored: string[] } {
    const found: string[] = [];
    const ignored: string[] = [];
    for (const relationship of relationships) {
      if (!types.includes(relationship.type)) continue;
      const name = `The relationship ${quoteName(relationship.id)} of ${quoteName(sourcePart)} (type ${relationship.type})`;
      const target = resolveTarget(sourcePart, relationship.target);
      if (target === undefined || target === '/') {
        ignored.push(`${name} points outside the package (${quoteName(relationship.target)}) and was ignored`);
      } else if (!relationship.external) {
        found.push(target);
      } else if (present(target)) {
        this.warnings.push(`${name} is marked TargetMode="External" but names the part ${quoteName(target)} of the package; it was read as an internal relationship`);
        found.push(target);
      } else {
        ignored.push(`${name} is marked TargetMode="External" and its target ${quoteName(relationship.target)} is no part of the package; it was ignored`);
      }
    }
    return { found, ignored };
  }

  private async xmlText(entry: ZipEntry): Promise<string> {
    return decodeXmlText(await readEntry(this.source, entry, this.limits.maxXmlPartBytes, 'The part'));
  }

  /** Part names are compared case-sensitively; a near miss in case is reported by missing(). */
  private find(path: string): ZipEntry | undefined {
    return this.parts.get(path);
  }

  private caseVariant(path: string): string | undefined {
    return this.lowerCaseParts.get(path.toLowerCase());
  }

  private missing(prefix: string, path: string, suffix = ''): string {
    const variant = this.caseVariant(path);
    const tail = suffix ? ` ${suffix}` : '';
    return variant && variant !== path
      ? `${prefix} ${quoteName(path)}${tail} (the package has ${quoteName(variant)}, which differs in case; part names are case-sensitive)`
      : `${prefix} ${quoteName(path)}${tail}`;
  }
}

function specFormat(path: string, contentType: string): 'json' | 'xml' | undefined {
  const lower = path.toLowerCase();
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.xml')) return 'xml';
  const type = contentType.toLowerCase().split(';')[0].trim();
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return 'xml';
  return undefined;
}
