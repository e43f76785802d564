import type { Field } from './ast';

/**
 * Where a field's values are in the stored JSON document, as a chain of SQL/JSON path evaluations.
 *
 * Every list the field reaches with `[]` (and, for `$sme`, the search through all elements at any depth) ends a
 * chunk: the next chunk is evaluated on each element the previous one yields. `$match` binds the elements of a
 * chunk shared by its fields, so its conditions hold for the same list element; a chunk's `key` (the paths and
 * variables of the chunks up to it) tells which fields share it. User input (idShorts) is never part of a path:
 * it travels in the chunk's `vars`. The paths are built from the grammar's fixed attribute names and numbers.
 */
export interface Chunk {
  /** An SQL/JSON path, relative to the document (first chunk) or to an element of the previous chunk. */
  path: string;
  /** The path's variables (`$s0`, ...). */
  vars: Record<string, string>;
  /** Identifies the chain of chunks up to and including this one. */
  key: string;
}

/** Keeps atomic values only: a field never points at an object or a list (IDTA-01002-3, field identifiers). */
const SCALAR = ' ? (@.type() == "string" || @.type() == "number" || @.type() == "boolean")';

/** Every submodel element at any depth (objects with a modelType; references and keys have none). */
const ALL_ELEMENTS = 'strict $.submodelElements.** ? (@.modelType.type() == "string")';

class ChunkBuilder {
  readonly chunks: Chunk[] = [];
  private path = 'lax $';
  private vars: Record<string, string> = {};
  private varCount = 0;

  append(step: string): void {
    this.path += step;
  }

  variable(value: string): string {
    const name = `s${this.varCount++}`;
    this.vars[name] = value;
    return `$${name}`;
  }

  /** Ends the chunk after a step that yields many items. */
  boundary(): void {
    const previous = this.chunks.length ? this.chunks[this.chunks.length - 1].key : '';
    const key = `${previous}|${this.path}${JSON.stringify(this.vars)}`;
    this.chunks.push({ path: this.path, vars: this.vars, key });
    this.path = 'lax $';
    this.vars = {};
    this.varCount = 0;
  }

  /** Starts a chunk with a path of its own (a strict recursive search). */
  start(path: string): void {
    this.path = path;
  }

  index(index: number | 'any' | undefined): void {
    if (index === undefined) return;
    if (index === 'any') {
      this.append('[*]');
      this.boundary();
    } else this.append(`[${index}]`);
  }

  finish(): Chunk[] {
    this.append(SCALAR);
    this.boundary();
    return this.chunks;
  }
}

/** A Reference used as a value stands for the value of its first key (IDTA-01002-3, "References"). */
const REFERENCE_SHORTCUTS = new Set(['semanticId', 'externalSubjectId']);

/** Attribute names the grammar spells otherwise than the JSON it reads (`endpoints[].protocolinformation.href`). */
const JSON_NAMES: Record<string, string> = { protocolinformation: 'protocolInformation' };

/** Appends the steps of a field's attribute (after `#`) to `b`. */
function appendAttribute(b: ChunkBuilder, field: Field): void {
  if (field.root === '$sme') {
    const [first] = field.attribute;
    if (first.name === 'language') return b.append('.value[*].language');
    if (first.name === 'value') return b.append('.value');
  }
  for (const segment of field.attribute) {
    b.append(`.${JSON_NAMES[segment.name] ?? segment.name}`);
    b.index(segment.index);
  }
  const last = field.attribute[field.attribute.length - 1];
  if (REFERENCE_SHORTCUTS.has(last.name) && last.index === undefined) b.append('.keys[0].value');
}

/**
 * The chunks of a field (already checked by `parse`) over the whole document. For `$sme` fields these describe
 * the language's semantics on the submodel document; the SQL translation reads elements from their rows instead
 * (`elementPattern`), and `parse` uses the chunks to check which fields of a `$match` share a list.
 */
export function fieldChunks(field: Field): Chunk[] {
  const b = new ChunkBuilder();
  if (field.root === '$sme') {
    if (field.path.length === 0) {
      b.start(ALL_ELEMENTS);
      b.boundary();
    } else {
      field.path.forEach((segment, i) => {
        if (i === 0) {
          b.start(`strict $.submodelElements.** ? (@.idShort == ${b.variable(segment.idShort)})`);
          b.boundary();
        } else {
          b.append(`.value[*] ? (@.idShort == ${b.variable(segment.idShort)})`);
        }
        for (const index of segment.indexes) {
          b.append('.value');
          b.index(index);
        }
      });
    }
  }
  appendAttribute(b, field);
  return b.finish();
}

/**
 * Which element rows (`submodel_elements`) an `$sme` field reads, and where in the row its values are.
 *
 * The idShortPath may start at any element (IDTA-01002-3: `$sme` "can start at any possible Submodel
 * Element"), so a path `a.b[].c` matches the rows whose stored path ends with it at a step boundary:
 * `^(?:.*\.)?a\.b\[[0-9]+\]\.c$`. Without a path, every element. The binding points are where a `$match`
 * makes fields share an element: the element the path starts at, and each list item `[]` picks; two fields share
 * a binding point when their paths agree up to it (`key`), and then the stored paths of their rows agree up to
 * it too (`capture`, a pattern whose first group is that part of the path).
 */
export interface ElementPattern {
  /** The whole pattern: fields with the same key read the same element in a `$match`. */
  key: string;
  /** The idShort of the element, when the path ends with one (an index lookup). */
  idShort?: string;
  /** An anchored regular expression on the stored path; absent for every element. */
  path?: string;
  bindings: { key: string; capture: string }[];
  /** The chunks of the attribute, over the row's `json` (the element without its child elements). */
  chunks: Chunk[];
}

/** Characters outside an idShort's (letters, digits, `_`, `-`) escaped for a regular expression. */
const escapeRegex = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, (c) => `\\${c}`);

export function elementPattern(field: Field): ElementPattern {
  const b = new ChunkBuilder();
  appendAttribute(b, field);
  const chunks = b.finish();
  if (field.path.length === 0) return { key: '*', bindings: [], chunks: rekey(chunks, '*') };
  let regex = '(?:.*\\.)?';
  let key = '';
  const bindings: ElementPattern['bindings'] = [];
  const pending: { key: string; at: number }[] = [];
  field.path.forEach((segment, i) => {
    regex += `${i ? '\\.' : ''}${escapeRegex(segment.idShort)}`;
    key += `${i ? '.' : ''}${segment.idShort}`;
    if (i === 0) pending.push({ key, at: regex.length });
    for (const index of segment.indexes) {
      regex += index === 'any' ? '\\[[0-9]+\\]' : `\\[${index}\\]`;
      key += index === 'any' ? '[]' : `[${index}]`;
      if (index === 'any') pending.push({ key, at: regex.length });
    }
  });
  for (const point of pending) {
    bindings.push({ key: point.key, capture: `^(${regex.slice(0, point.at)})${regex.slice(point.at)}$` });
  }
  const last = field.path[field.path.length - 1];
  return {
    key,
    idShort: last.indexes.length === 0 ? last.idShort : undefined,
    path: `^${regex}$`,
    bindings,
    chunks: rekey(chunks, key),
  };
}

/** Chunks whose keys also name the element pattern they are read from. */
function rekey(chunks: Chunk[], pattern: string): Chunk[] {
  return chunks.map((chunk) => ({ ...chunk, key: `row:${pattern}|${chunk.key}` }));
}

