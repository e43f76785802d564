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

/** The chunks of a field (already checked by `parse`). */
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
    const [first] = field.attribute;
    if (first.name === 'language') b.append('.value[*].language');
    else if (first.name === 'value') b.append('.value');
  }
  if (!(field.root === '$sme' && (field.attribute[0].name === 'language' || field.attribute[0].name === 'value'))) {
    for (const segment of field.attribute) {
      b.append(`.${segment.name}`);
      b.index(segment.index);
    }
    const last = field.attribute[field.attribute.length - 1];
    if (REFERENCE_SHORTCUTS.has(last.name) && last.index === undefined) b.append('.keys[0].value');
  }
  return b.finish();
}
