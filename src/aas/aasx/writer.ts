import { Readable } from 'node:stream';
import JSZip from 'jszip';
import {
  CONTENT_TYPES_NAMESPACE,
  escapeXml,
  RELATIONSHIP_TYPES,
  RELATIONSHIPS_CONTENT_TYPE,
  RELATIONSHIPS_NAMESPACE,
  relsPartOf,
} from './opc';
import { percentDecode } from './zip';

export interface AasxFileInput {
  /** Where the file should live ("/aasx/files/manual.pdf"); see assignPartNames for what is kept. */
  path: string;
  contentType: string;
  /** Opened only when the package stream reaches this file, so one file at a time is open. */
  open(): Promise<Readable>;
}

export interface AasxWriteInput {
  spec: { format: 'json' | 'xml'; content: string | (() => AsyncIterable<string>) };
  files?: AasxFileInput[];
  /** The package thumbnail; a path equal to one of the files' shares that part. */
  thumbnail?: AasxFileInput;
  /** Modification time of every entry; now by default. */
  date?: Date;
}

const ORIGIN_PART = '/aasx/aasx-origin';
const RESERVED = new Set(['/[content_types].xml', ORIGIN_PART, '/aasx/data.json', '/aasx/data.xml']);
/** Content types whose bytes are compressed already: stored, not deflated again. */
const COMPRESSED_TYPES = /^(image\/(png|jpeg|gif|webp)|video\/|audio\/|application\/(zip|gzip|x-7z-compressed|x-rar-compressed|aasx\+zip|asset-administration-shell-package))/i;

/**
 * Part names for files, in input order: a path that is already a safe part name under /aasx/ and not taken is
 * kept as is (so File values that name it stay right); anything else is made safe (percent-decoded, split on
 * "/" and "\", "." and ".." dropped, characters outside [A-Za-z0-9._~-] replaced by "_", placed under
 * /aasx/files/) and made unique, case-insensitively as OPC compares part names, with "-1", "-2"... before the
 * extension. The same input always gives the same names; call it to know the names before writing the spec.
 */
export function assignPartNames(paths: readonly string[]): string[] {
  const taken = new Set(RESERVED);
  return paths.map((path) => {
    const safe = safePartName(path);
    const slash = safe.lastIndexOf('/');
    const dot = safe.lastIndexOf('.');
    const [stem, extension] = dot > slash + 1 ? [safe.slice(0, dot), safe.slice(dot)] : [safe, ''];
    let name = safe;
    for (let n = 1; taken.has(name.toLowerCase()); n++) name = `${stem}-${n}${extension}`;
    taken.add(name.toLowerCase());
    return name;
  });
}

function safePartName(path: string): string {
  const segments = percentDecode(path)
    .normalize('NFC')
    .replace(/^[A-Za-z]:(?=[/\\]|$)/, '') // a drive letter
    .split(/[/\\]+/)
    .filter((segment) => segment !== '' && segment !== '.' && segment !== '..')
    .map((segment) => {
      let safe = segment.replace(/[^A-Za-z0-9._~-]/g, '_').replace(/\.+$/, '').slice(0, 120);
      if (safe === '' || safe.toLowerCase() === '_rels') safe = `${safe}_`;
      return safe.toLowerCase().endsWith('.rels') ? `${safe}_` : safe;
    });
  if (segments.length === 0) segments.push('file');
  if (segments.length < 2 || segments[0] !== 'aasx') segments.unshift('aasx', 'files');
  return `/${segments.join('/')}`;
}

/**
 * An AASX package as a stream: [Content_Types].xml, /_rels/.rels (aasx-origin, thumbnail), /aasx/aasx-origin
 * with its aas-spec relationship to /aasx/data.json or /aasx/data.xml, the spec part's aas-suppl relationships
 * to every file, and the files. Entries stream through jszip one after another (streamFiles: sizes go into
 * data descriptors), so memory stays flat however large the files are. An error opening or reading a file
 * is an error of the returned stream.
 */
export function writeAasxPackage(input: AasxWriteInput): Readable {
  const files = input.files ?? [];
  const thumbnailShared = input.thumbnail && files.findIndex((file) => file.path === input.thumbnail!.path);
  const ownThumbnail = input.thumbnail && thumbnailShared === -1 ? input.thumbnail : undefined;
  const names = assignPartNames([...files.map((file) => file.path), ...(ownThumbnail ? [ownThumbnail.path] : [])]);
  const thumbnailPart = input.thumbnail && (ownThumbnail ? names[files.length] : names[thumbnailShared as number]);
  const specPart = input.spec.format === 'json' ? '/aasx/data.json' : '/aasx/data.xml';
  const specType = input.spec.format === 'json' ? 'application/json' : 'application/xml';

  const overrides: [string, string][] = [
    [ORIGIN_PART, 'text/plain'],
    [specPart, specType],
    ...files.map((file, i): [string, string] => [names[i], file.contentType]),
    ...(ownThumbnail ? [[names[files.length], ownThumbnail.contentType] as [string, string]] : []),
  ];
  const contentTypes =
    `<?xml version="1.0" encoding="utf-8"?><Types xmlns="${CONTENT_TYPES_NAMESPACE}">` +
    `<Default Extension="rels" ContentType="${RELATIONSHIPS_CONTENT_TYPE}"/>` +
    overrides.map(([part, type]) => `<Override PartName="${escapeXml(part)}" ContentType="${escapeXml(type)}"/>`).join('') +
    '</Types>';

  const zip = new JSZip();
  const date = input.date ?? new Date();
  const add = (part: string, data: string | Readable, compress = true) =>
    zip.file(part.slice(1), data, { binary: typeof data !== 'string', date, createFolders: false, compression: compress ? 'DEFLATE' : 'STORE' });

  add('/[Content_Types].xml', contentTypes);
  add(
    '/_rels/.rels',
    relationships([
      [RELATIONSHIP_TYPES.origin[0], ORIGIN_PART],
      ...(thumbnailPart ? [[RELATIONSHIP_TYPES.thumbnail[0], thumbnailPart] as [string, string]] : []),
    ]),
  );
  add(ORIGIN_PART, 'Intentionally empty.');
  add(relsPartOf(ORIGIN_PART), relationships([[RELATIONSHIP_TYPES.spec[0], specPart]]));
  const content = input.spec.content;
  add(specPart, typeof content === 'string' ? content : lazyStream(async () => Readable.from(content(), { objectMode: false })));
  if (files.length > 0) {
    add(relsPartOf(specPart), relationships(files.map((_, i): [string, string] => [RELATIONSHIP_TYPES.supplementary[0], names[i]])));
  }
  files.forEach((file, i) => add(names[i], lazyStream(file.open), !COMPRESSED_TYPES.test(file.contentType)));
  if (ownThumbnail) add(names[files.length], lazyStream(ownThumbnail.open), !COMPRESSED_TYPES.test(ownThumbnail.contentType));

  const output = zip.generateNodeStream({ type: 'nodebuffer', streamFiles: true, compressionOptions: { level: 6 } });
  return new Readable().wrap(output);
}

function relationships(items: [type: string, target: string][]): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?><Relationships xmlns="${RELATIONSHIPS_NAMESPACE}">` +
    items.map(([type, target], i) => `<Relationship Type="${escapeXml(type)}" Target="${escapeXml(target)}" Id="R${i + 1}"/>`).join('') +
    '</Relationships>'
  );
}

/**
 * A stream that opens its source on the first read. jszip pauses every input stream when it is added and
 * resumes one at a time as it writes the entries, so sources are opened one after another, never all at once.
 */
function lazyStream(open: () => Promise<Readable>): Readable {
  async function* chunks() {
    const source = await open();
    try {
      for await (const chunk of source) yield typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    } finally {
      source.destroy();
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}
