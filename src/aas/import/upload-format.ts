import fs from 'node:fs';
import { AppError, badRequest } from '../../graphql/errors';
import { DEFAULT_AASX_LIMITS } from '../aasx';
import { decodeXmlText } from '../aasx/xml';
import { type EnvironmentDocument, readEnvironmentDocumentInSlices } from './environment-document';

/** What an uploaded file holds: an AASX package, or an environment document in JSON or XML. */
export type UploadFormat = 'aasx' | 'json' | 'xml';

/** An uploaded file as the multipart part describes it. */
export interface UploadedFileInfo {
  contentType: string;
  fileName: string;
}

/** Bytes of the file's start that sniffing looks at: enough for a BOM, blanks and the first character. */
const SNIFF_BYTES = 4096;

/**
 * The format of an upload, as the BaSyx AAS Environment's `/upload` tells it (its part's content type), else by
 * the file name's extension (as BaSyx reads files from disk), else by the first bytes: a zip's local header
 * (`PK\x03\x04`), `{` or `<` after a byte order mark and blanks. A content type that names none of the three
 * (`application/octet-stream`, the `text/plain` multipart assumes without one) says nothing. Undefined: none.
 */
export function uploadFormat(file: UploadedFileInfo, head: Buffer): UploadFormat | undefined {
  const type = file.contentType.toLowerCase().split(';')[0].trim();
  if (type === 'application/asset-administration-shell-package' || type.startsWith('application/asset-administration-shell-package+')) return 'aasx';
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return 'xml';
  const extension = /\.([A-Za-z]+)$/.exec(file.fileName)?.[1].toLowerCase();
  if (extension === 'aasx' || extension === 'json' || extension === 'xml') return extension;
  return sniff(head);
}

function sniff(head: Buffer): UploadFormat | undefined {
  if (head.length >= 4 && head.readUInt32BE(0) === 0x504b0304) return 'aasx';
  const first = decodeXmlText(head).trimStart()[0];
  if (first === '{') return 'json';
  if (first === '<') return 'xml';
  return undefined;
}

/** The first bytes of a file on disk (for uploadFormat). */
export async function headOf(path: string): Promise<Buffer> {
  const handle = await fs.promises.open(path, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Reads an uploaded environment document (a file on disk) with readEnvironmentDocument. It is read into memory
 * as text, so it may be at most `maxBytes` long, as a package's spec part (AasxLimits.maxSpecBytes): more is 413.
 */
export async function readEnvironmentFile(path: string, format: 'json' | 'xml', name: string, maxBytes = DEFAULT_AASX_LIMITS.maxSpecBytes): Promise<EnvironmentDocument> {
  const { size } = await fs.promises.stat(path);
  if (size > maxBytes) {
    throw new AppError('PAYLOAD_TOO_LARGE', `${name} is ${size} bytes; a JSON or XML environment may be at most ${maxBytes} bytes (an AASX package may be larger).`);
  }
  const text = decodeXmlText(await fs.promises.readFile(path));
  if (text.trim() === '') throw badRequest(`${name} is empty.`);
  return readEnvironmentDocumentInSlices(text, format, name);
}
