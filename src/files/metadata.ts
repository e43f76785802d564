import { badRequest } from '../graphql/errors';
import { VDI_2770_CLASSES, isVdi2770Class } from '../common/vdi2770';
import { filterText } from '../aas/query/text-match';

/** What a client sets about a file (platform spec, "File metadata"). */
export interface FileMetadata {
  displayName?: string | null;
  /** A VDI 2770 class id (`02-04`). */
  classification?: string | null;
  attributes?: FileAttribute[] | null;
}

export interface FileAttribute {
  key: string;
  value: string;
}

export const MAX_ATTRIBUTES = 50;
export const MAX_ATTRIBUTE_LENGTH = 2048;
export const MAX_DISPLAY_NAME_LENGTH = 2048;

/**
 * The metadata as stored, checked: at most 50 attributes with distinct, non-empty keys, key and value at most
 * 2048 characters each; a classification from VDI 2770; a display name of at most 2048 characters. Every problem
 * is one message of the 400.
 */
export function checkMetadata(input: FileMetadata): Required<FileMetadata> & { attributes: FileAttribute[] } {
  const problems: string[] = [];
  const displayName = input.displayName ?? null;
  if (displayName !== null && (typeof displayName !== 'string' || displayName.length > MAX_DISPLAY_NAME_LENGTH)) {
    problems.push(`displayName must be a string of at most ${MAX_DISPLAY_NAME_LENGTH} characters.`);
  }
  const classification = input.classification ?? null;
  if (classification !== null && (typeof classification !== 'string' || !isVdi2770Class(classification))) {
    problems.push(`classification '${String(classification)}' is no VDI 2770 class id (one of ${Object.keys(VDI_2770_CLASSES).join(', ')}).`);
  }
  const attributes = input.attributes ?? [];
  if (!Array.isArray(attributes)) problems.push('attributes must be a list of {key, value}.');
  else {
    if (attributes.length > MAX_ATTRIBUTES) problems.push(`A file has at most ${MAX_ATTRIBUTES} attributes, got ${attributes.length}.`);
    const keys = new Set<string>();
    attributes.forEach((attribute, i) => {
      const { key, value } = (attribute ?? {}) as Partial<FileAttribute>;
      if (typeof key !== 'string' || key === '' || key.length > MAX_ATTRIBUTE_LENGTH) {
        problems.push(`attributes[${i}].key must be a non-empty string of at most ${MAX_ATTRIBUTE_LENGTH} characters.`);
      } else if (keys.has(key)) problems.push(`attributes[${i}].key '${key}' is given twice.`);
      else keys.add(key);
      if (typeof value !== 'string' || value.length > MAX_ATTRIBUTE_LENGTH) {
        problems.push(`attributes[${i}].value must be a string of at most ${MAX_ATTRIBUTE_LENGTH} characters.`);
      }
    });
  }
  if (problems.length) throw badRequest(problems.length === 1 ? problems[0] : `The file metadata is not valid (${problems.length} problems).`, problems);
  return {
    displayName,
    classification,
    attributes: (attributes as FileAttribute[]).map(({ key, value }) => ({ key, value })),
  };
}

/** What a file filter may name (file.service `FileFilter`), as `checkFileFilter` reads it. */
interface FileFilterValues {
  displayName?: string | null;
  displayNameStartsWith?: string | null;
  displayNameContains?: string | null;
  classification?: string | null;
  attributes?: FileAttribute[] | null;
}

/**
 * The values of a file filter, checked against what metadata can hold: a displayName filter of at most 2048
 * characters (a prefix or contains text also not empty), a VDI 2770 classification, at most 50 attributes with
 * non-empty keys, keys and values of at most 2048 characters. 400 otherwise.
 */
export function checkFileFilter(filter: FileFilterValues): void {
  if (filter.displayName != null && filter.displayName.length > MAX_DISPLAY_NAME_LENGTH) {
    throw badRequest(`The filter 'displayName' is ${filter.displayName.length} characters long; at most ${MAX_DISPLAY_NAME_LENGTH} are allowed.`);
  }
  filterText('displayNameStartsWith', filter.displayNameStartsWith, MAX_DISPLAY_NAME_LENGTH);
  filterText('displayNameContains', filter.displayNameContains, MAX_DISPLAY_NAME_LENGTH);
  if (filter.classification != null && !isVdi2770Class(filter.classification)) {
    throw badRequest(`The filter 'classification' '${filter.classification}' is no VDI 2770 class id (one of ${Object.keys(VDI_2770_CLASSES).join(', ')}).`);
  }
  const attributes = filter.attributes ?? [];
  if (attributes.length > MAX_ATTRIBUTES) throw badRequest(`A file has at most ${MAX_ATTRIBUTES} attributes; the filter names ${attributes.length}.`);
  for (const { key, value } of attributes) {
    if (key === '' || key.length > MAX_ATTRIBUTE_LENGTH || value.length > MAX_ATTRIBUTE_LENGTH) {
      throw badRequest(`An attribute filter has a non-empty key and a value of at most ${MAX_ATTRIBUTE_LENGTH} characters each.`);
    }
  }
}
