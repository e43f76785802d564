import type { JsonObject } from '../model/parse';
import { CHOICES, CLASSES, type XmlProperty } from '../xml/schema-table';

/**
 * A stored document as the exports write it: without the empty values the AAS schemas forbid. An import keeps what
 * the source held (`<idShort></idShort>`, `<description/>`, a language string without text), with warnings, but
 * neither the JSON schema (strings of at least one character, lists of at least one item) nor AAS.xsd allows them,
 * and strict readers (the BaSyx Python SDK's) refuse the whole environment for one. So, driven by the schema table:
 * - an optional string property that is empty is left out, except the values that may be empty strings
 *   (`Property.value`, `Range.min`, ...: `xs:string` values are any string, and `Blob.value` is base64);
 * - a language string without text is left out of its list;
 * - an optional list that is empty (or becomes empty so) is left out.
 * What is required stays as it is, empty or not (`keys: []`, `preferredName: []`): leaving it out would make a
 * document no reader takes at all, and it is the stored content's own violation, which the import reported.
 * Unknown properties are passed through. A document without anything to leave out is returned as it is (the
 * same object); otherwise a copy, the stored document is never changed.
 */
export function withoutEmpties(cls: string, document: JsonObject): JsonObject {
  return cleanObject(cls, document) ?? document;
}

/** String properties whose value may be the empty string, by class. */
const MAY_BE_EMPTY: Readonly<Record<string, readonly string[]>> = {
  property: ['value'],
  extension: ['value'],
  qualifier: ['value'],
  range: ['min', 'max'],
  blob: ['value'],
};

const LANG_STRING = /^langString/;

const lowerFirst = (name: string) => (name ? name[0].toLowerCase() + name.slice(1) : name);

/** The cleaned copy of `value` (an instance of `cls`), or undefined when nothing changes. */
function cleanObject(cls: string, value: JsonObject): JsonObject | undefined {
  const table = CLASSES[cls];
  if (!table) return undefined;
  let copy: JsonObject | undefined;
  const set = (name: string, inner: unknown) => {
    copy ??= { ...value };
    if (inner === undefined) delete copy[name];
    else copy[name] = inner;
  };
  for (const prop of table.properties) {
    const inner = value[prop.name];
    if (inner === undefined || inner === null) continue;
    if (prop.kind === 'string') {
      if (inner === '' && !prop.required && !MAY_BE_EMPTY[cls]?.includes(prop.name)) set(prop.name, undefined);
      continue;
    }
    if (prop.kind === 'class' || prop.kind === 'choice') {
      if (typeof inner !== 'object' || Array.isArray(inner)) continue;
      const cleaned = cleanObject(prop.kind === 'class' ? prop.type! : choiceClass(prop.type!, inner as JsonObject), inner as JsonObject);
      if (cleaned) set(prop.name, cleaned);
      continue;
    }
    if (prop.kind === 'list' || prop.kind === 'choiceList') {
      if (!Array.isArray(inner)) continue;
      const cleaned = cleanList(prop, inner);
      if (cleaned.length === 0 && !prop.required) set(prop.name, undefined);
      else if (cleaned.length === 0 && inner.length > 0) continue; // a required list is never emptied
      else if (cleaned !== inner) set(prop.name, cleaned);
    }
  }
  return copy;
}

/** The list's items cleaned, language strings without text left out; the same array when nothing changes. */
function cleanList(prop: XmlProperty, items: unknown[]): unknown[] {
  let changed = false;
  const out: unknown[] = [];
  for (const item of items) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      out.push(item);
      continue;
    }
    const object = item as JsonObject;
    if (prop.kind === 'list' && LANG_STRING.test(prop.type!) && (object.text === '' || object.text === undefined)) {
      changed = true;
      continue;
    }
    const cls = prop.kind === 'list' ? prop.type! : choiceClass(prop.type!, object);
    const cleaned = cleanObject(cls, object);
    if (cleaned) changed = true;
    out.push(cleaned ?? object);
  }
  return changed ? out : items;
}

/** The class of an item of a choice group, by its modelType ('' when it names none of the group). */
function choiceClass(choice: string, item: JsonObject): string {
  const cls = typeof item.modelType === 'string' ? lowerFirst(item.modelType) : '';
  return CHOICES[choice]?.includes(cls) ? cls : '';
}
