import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/* eslint-disable @typescript-eslint/no-explicit-any -- OpenAPI documents are walked as plain JSON */
export type Json = any;

/**
 * The vendored official files of one release (see NOTICE.md there: `aas-api-v3.0.4`, `aas-api-v3.1.2`), found from
 * the sources and from the build in `dist/`.
 */
export function specDir(release = 'aas-api-v3.0.4'): string {
  const candidates = [path.join(__dirname, release), path.resolve(__dirname, '../../../rest-facade/openapi', release)];
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'LICENSE.txt')));
  if (!found) throw new Error(`The AAS API OpenAPI files are missing (looked in ${candidates.join(', ')}).`);
  return found;
}

/**
 * Parsed YAML kept as JSON, named by the digest of the YAML text, beside the compiled code (`dist/`; a run from source
 * keeps none): reading the vendored files is most of a second of every start as YAML, milliseconds as JSON. Where
 * the directory cannot be written (a read-only image), the YAML is parsed as before.
 */
const YAML_CACHE = __filename.endsWith('.js') ? path.join(__dirname, 'yaml-cache') : undefined;

function parseYaml(text: string): Json {
  if (!YAML_CACHE) return parse(text);
  const cached = path.join(YAML_CACHE, `${createHash('sha256').update(text).digest('base64url')}.json`);
  try {
    return JSON.parse(fs.readFileSync(cached, 'utf8'));
  } catch {
    // Not cached yet (or unreadable): parsed below.
  }
  const doc = parse(text);
  try {
    fs.mkdirSync(YAML_CACHE, { recursive: true });
    // Written whole under another name, then renamed: a reader never sees half a file.
    fs.writeFileSync(`${cached}.${process.pid}`, JSON.stringify(doc));
    fs.renameSync(`${cached}.${process.pid}`, cached);
  } catch {
    // A read-only directory: the next start parses the YAML again.
  }
  return doc;
}

/** The AAS API's schemas (Part 2): the Result of every error, the error responses, paging parameters. */
export const PART2 = 'Part2-API-Schemas/openapi.yaml';

/**
 * The remote schema domains the service files reference, and their local copies: those of the bundler's release (the
 * V3.0.4 names this server's own operations use resolve to the V3.1.2 copies in a V3.1.2 document).
 */
const DOMAINS: [RegExp, string][] = [
  [/^https:\/\/api\.swaggerhub\.com\/domains\/Plattform_i40\/Part1-MetaModel-Schemas\/V3\.[01]\.\d+$/, 'Part1-MetaModel-Schemas/openapi.yaml'],
  [/^https:\/\/api\.swaggerhub\.com\/domains\/Plattform_i40\/Part2-API-Schemas\/V3\.[01]\.\d+$/, PART2],
];

const COMPONENT = /^\/components\/([A-Za-z]+)\/([^/]+)$/;

/**
 * Copies parts of the vendored OpenAPI files into one document: every `$ref` they need, in whichever file, is
 * copied into the output's `components` (under its own name; a clash between files gets a suffix) and pointed
 * there, so the result stands alone. The files are OpenAPI 3.0.3 without `nullable` or boolean
 * `exclusiveMinimum`, so their schemas are valid 3.1 schemas as they are.
 */
export class Bundler {
  private readonly files = new Map<string, Json>();
  /** `file#pointer` -> the output's `#/components/...` reference. */
  private readonly refs = new Map<string, string>();
  readonly components: Record<string, Record<string, Json>> = {};
  /** The source text of each copied component, by output reference: identical ones from two files are one. */
  private readonly sources = new Map<string, string>();

  constructor(private readonly dir: string) {}

  file(relative: string): Json {
    let doc = this.files.get(relative);
    if (!doc) {
      doc = parseYaml(fs.readFileSync(path.join(this.dir, relative), 'utf8'));
      this.files.set(relative, doc);
    }
    return doc;
  }

  /** A deep copy of `node` (found in `file`), its references copied into `components` and rewritten. */
  copy(node: Json, file: string): Json {
    if (Array.isArray(node)) return node.map((item) => this.copy(item, file));
    if (node === null || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      out[key] = key === '$ref' && typeof value === 'string' ? this.ref(value, file) : this.copy(value, file);
    }
    return out;
  }

  private ref(ref: string, from: string): string {
    const hash = ref.indexOf('#');
    const target = hash < 0 ? ref : ref.slice(0, hash);
    const pointer = hash < 0 ? '' : ref.slice(hash + 1);
    let file = from;
    if (target) {
      const domain = DOMAINS.find(([pattern]) => pattern.test(target));
      if (!domain) throw new Error(`Unknown $ref target ${ref} in ${from}`);
      file = domain[1];
    }
    const key = `${file}#${pointer}`;
    const known = this.refs.get(key);
    if (known) return known;
    const m = COMPONENT.exec(pointer);
    if (!m) throw new Error(`Unsupported $ref ${ref} in ${from}`);
    const [, kind, name] = m;
    const node = this.file(file).components?.[kind]?.[name];
    if (node === undefined) throw new Error(`$ref ${ref} in ${from} points nowhere`);
    const section = (this.components[kind] ??= {});
    // The same component in two service files (a path parameter, say) is copied once, unless it refers to
    // components of its own file, which may differ between files.
    const source = JSON.stringify(node);
    const selfContained = !source.includes('"$ref":"#');
    if (selfContained && this.sources.get(`#/components/${kind}/${name}`) === source) {
      this.refs.set(key, `#/components/${kind}/${name}`);
      return `#/components/${kind}/${name}`;
    }
    let outName = name;
    for (let n = 2; Object.hasOwn(section, outName); n++) outName = `${name}_${n}`;
    const outRef = `#/components/${kind}/${outName}`;
    if (selfContained) this.sources.set(outRef, source);
    this.refs.set(key, outRef);
    section[outName] = null; // reserved before recursing: schemas refer to themselves
    section[outName] = this.copy(node, file);
    return outRef;
  }
}
