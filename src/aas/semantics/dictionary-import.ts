import fs from 'node:fs';
import { AppError, badRequest } from '../../graphql/errors';
import { decodeXmlText } from '../aasx/xml';
import { readPackageEnvironment } from '../import/aasx-import';
import { readEnvironmentDocument } from '../import/environment-document';
import { headOf, uploadFormat } from '../import/upload-format';
import { DICTIONARY_FORMATS, DictionaryEntry, DictionaryFormat, entriesOfEclassCsv, entriesOfEnvironment } from './dictionary-content';

/** Largest text document (JSON, XML, CSV) read into memory for a dictionary; an AASX package is read from disk part by part. */
export const MAX_DICTIONARY_TEXT_BYTES = 256 * 1024 * 1024;

/** The format named by a client, checked: one of DICTIONARY_FORMATS. */
export function dictionaryFormat(name: string): DictionaryFormat {
  if (!(DICTIONARY_FORMATS as readonly string[]).includes(name)) throw badRequest(`Unknown dictionary format '${name.slice(0, 64)}' (${DICTIONARY_FORMATS.join(', ')}).`);
  return name as DictionaryFormat;
}

/**
 * The entries of a dictionary given as text: the concept descriptions of an AAS environment in JSON or XML (read
 * by the import's reader, every AAS version it reads), or an ECLASS Basic CSV property table.
 */
export function entriesOfText(format: DictionaryFormat, text: string): DictionaryEntry[] {
  if (text.trim() === '') throw badRequest('The dictionary is empty.');
  switch (format) {
    case 'aas-json':
      return entriesOfEnvironment(readEnvironmentDocument(text, 'json', 'The dictionary').environment);
    case 'aas-xml':
      return entriesOfEnvironment(readEnvironmentDocument(text, 'xml', 'The dictionary').environment);
    case 'eclass-csv':
      return entriesOfEclassCsv(text);
    case 'aasx':
      throw badRequest('An AASX package is binary: upload it as a file (POST .../semantics/dictionaries), not as text.');
  }
}

/**
 * The entries of an uploaded dictionary file: `format` as the client named it, else told by the part's content
 * type or the file name (`.csv` is an ECLASS CSV; `.aasx`, `.json`, `.xml` as the AAS import tells them), else by
 * the first bytes. Undetectable: 400.
 */
export async function entriesOfFile(path: string, info: { contentType: string; fileName: string }, format: DictionaryFormat | undefined): Promise<{ format: DictionaryFormat; entries: DictionaryEntry[] }> {
  const detected = format ?? (await detect(path, info));
  if (detected === 'aasx') return { format: detected, entries: entriesOfEnvironment((await readPackageEnvironment(path)).environment) };
  const { size } = await fs.promises.stat(path);
  if (size > MAX_DICTIONARY_TEXT_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', `A ${detected} dictionary may be at most ${MAX_DICTIONARY_TEXT_BYTES} bytes.`);
  return { format: detected, entries: entriesOfText(detected, decodeXmlText(await fs.promises.readFile(path))) };
}

async function detect(path: string, info: { contentType: string; fileName: string }): Promise<DictionaryFormat> {
  const type = info.contentType.toLowerCase().split(';')[0].trim();
  if (type === 'text/csv' || /\.csv$/i.test(info.fileName)) return 'eclass-csv';
  const aas = uploadFormat(info, await headOf(path));
  if (aas === 'aasx') return 'aasx';
  if (aas === 'json') return 'aas-json';
  if (aas === 'xml') return 'aas-xml';
  throw badRequest(`The format of the file is not told by its content type, name or content: give format (${DICTIONARY_FORMATS.join(', ')}).`);
}
