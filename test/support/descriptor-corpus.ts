import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { type Rnd, seededRandom } from './seeded-random';

/**
 * Registry descriptors for `test/unit/descriptor.test.ts`: valid ones generated from a seed, and invalid ones, each
 * a single mutation of a valid one, labelled with the rule it breaks and the JSON path the 400 must name.
 *
 * The schema-driven cases (required properties, maxLength, minLength, pattern, enum, minItems, types, unknown
 * properties, optional properties left out, values at their limits) come from walking a complete valid descriptor
 * alongside the Part 2 schema as read from the vendored `openapi.yaml` at test time, so they follow the schema,
 * not tables of ours. What that schema only `$ref`s to Part 1 (LangStrings, Reference, Extension, ...) and the
 * rules the schema does not state (idShort's metamodel rule, duplicate submodel ids) are hand-written cases.
 */

export type Json = unknown;
export type JsonObject = Record<string, unknown>;

export interface ValidCase {
  label: string;
  doc: JsonObject;
}

export interface InvalidCase {
  label: string;
  doc: Json;
  /** The JSON path (`$.endpoints[0].interface`) at or under which a message must report the problem. */
  path: string;
}

export type DescriptorKind = 'shell' | 'submodel';

// --- Valid descriptors, generated

const external = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const model = (type: string, value: string) => ({ type: 'ModelReference', keys: [{ type, value }] });

const LANGUAGES = ['en', 'de', 'fr', 'de-CH', 'en-GB', 'zh-Hans-CN', 'ja'];
const WORDS = ['motor', 'pump', 'Gerät', 'équipement', '電動機', 'sensor 🌡', 'valve', 'drive'];

/** 1..max lang strings with distinct languages. */
function langStrings(rnd: Rnd, max: number, text: (word: string) => string) {
  const languages = [...LANGUAGES].sort(() => rnd.next() - 0.5).slice(0, 1 + rnd.int(max));
  return languages.map((language) => ({ language, text: text(rnd.pick(WORDS)) }));
}

const idShortOf = (rnd: Rnd, stem: string) => `${stem}${rnd.int(1000)}${rnd.pick(['', '_a', 'X_1'])}`;

/** Every property of ProtocolInformation on the first endpoint; the others vary the protocol. */
function endpoint(rnd: Rnd, iface: string, target: string, index: number) {
  const host = rnd.pick(['localhost:8081', 'aas.example.org', '[::1]:4443']);
  const variants = [
    {
      href: `https://${host}/api/v3.0/${target}`,
      endpointProtocol: 'HTTP',
      endpointProtocolVersion: ['1.1', '2'],
      subprotocol: 'AAS',
      subprotocolBody: 'application/json',
      subprotocolBodyEncoding: 'plain',
      securityAttributes: [
        { type: 'NONE', key: 'NONE', value: 'NONE' },
        { type: 'RFC_TLSA', key: '_443._tcp.aas.example.org', value: '3 1 1 0C72AC70B745AC19998811B131D662C9AC69DBDBE7CB23E5B514B56664C5D3D6' },
        { type: 'W3C_DID', key: 'did', value: `did:web:${rnd.int(100)}.example.org` },
      ],
    },
    { href: `opc.tcp://${host}:4840`, endpointProtocol: 'OPC UA', subprotocol: 'OPC UA Basic SOAP', subprotocolBody: 'ns=2;s=MyAAS', subprotocolBodyEncoding: 'application/soap+xml' },
    { href: `mqtt://${host}:1883/aas/${rnd.int(100)}`, endpointProtocol: 'MQTT', endpointProtocolVersion: ['5.0'], securityAttributes: [{ type: 'W3C_DID', key: 'did', value: 'did:example:123456' }] },
    { href: `http://${host}/${target}` },
  ];
  return { interface: iface, protocolInformation: index === 0 ? variants[0] : rnd.pick(variants) };
}

function endpoints(rnd: Rnd, iface: string, target: string, full: boolean) {
  const count = full ? 3 : 1 + rnd.int(3);
  return Array.from({ length: count }, (_, i) => endpoint(rnd, iface, target, full ? i : 1 + i));
}

/** Optional properties, all of them when `full`, else each with probability 1/2. */
const keep = (rnd: Rnd, full: boolean) => full || rnd.next() < 0.5;

function descriptorBase(rnd: Rnd, full: boolean): JsonObject {
  const doc: JsonObject = {};
  if (keep(rnd, full)) doc.description = langStrings(rnd, 3, (w) => `The ${w}, described`);
  if (keep(rnd, full)) doc.displayName = langStrings(rnd, 3, (w) => w);
  if (keep(rnd, full)) {
    doc.extensions = [
      { semanticId: external('urn:example:extension:origin'), supplementalSemanticIds: [external('urn:example:s')], name: 'origin', valueType: 'xs:string', value: 'generated', refersTo: [model('Submodel', 'urn:example:sm:origin')] },
      ...(rnd.next() < 0.5 ? [{ name: 'count', valueType: 'xs:int', value: String(rnd.int(100)) }] : []),
    ];
  }
  if (keep(rnd, full)) doc.administration = { version: String(rnd.int(10)), revision: String(rnd.int(10)), creator: external('urn:example:creator'), templateId: 'urn:example:template' };
  return doc;
}

function submodelDescriptor(rnd: Rnd, id: string, full: boolean): JsonObject {
  const doc: JsonObject = { ...descriptorBase(rnd, full) };
  if (keep(rnd, full)) doc.idShort = idShortOf(rnd, 'Submodel');
  doc.id = id;
  if (keep(rnd, full)) doc.semanticId = external(rnd.pick(['https://admin-shell.io/zvei/nameplate/2/0/Nameplate', '0173-1#01-AFZ615#016', 'urn:example:sm:semantic']));
  if (keep(rnd, full)) doc.supplementalSemanticId = [external('urn:example:supplemental:1'), model('ConceptDescription', 'urn:example:cd:1')];
  doc.endpoints = endpoints(rnd, 'SUBMODEL-3.0', `submodels/${Buffer.from(id).toString('base64url')}`, full);
  return doc;
}

function shellDescriptor(rnd: Rnd, n: number, full: boolean): JsonObject {
  const id = rnd.pick([`https://example.org/aas/${n}`, `urn:example:aas:${n}`, `urn:ex:äöü:${n}:🚀`]);
  const doc: JsonObject = { ...descriptorBase(rnd, full) };
  if (keep(rnd, full)) doc.assetKind = rnd.pick(['Instance', 'Type', 'NotApplicable']);
  if (keep(rnd, full)) doc.assetType = `urn:example:asset-type:${rnd.int(10)}`;
  if (keep(rnd, full)) doc.endpoints = endpoints(rnd, 'AAS-3.0', `shells/${Buffer.from(id).toString('base64url')}`, full);
  if (keep(rnd, full)) doc.globalAssetId = `https://example.org/asset/${n}`;
  if (keep(rnd, full)) doc.idShort = idShortOf(rnd, 'Shell');
  doc.id = id;
  if (keep(rnd, full)) {
    doc.specificAssetIds = [
      { semanticId: external('urn:example:serial'), name: 'serialNumber', value: `SN-${n}-${rnd.int(1e6)}`, externalSubjectId: external('urn:example:customer') },
      { name: 'manufacturerPartId', value: `P${rnd.int(1e4)}` },
    ];
  }
  if (keep(rnd, full)) {
    const count = full ? 3 : rnd.int(4);
    doc.submodelDescriptors = Array.from({ length: count }, (_, i) => submodelDescriptor(rnd, `${id}/submodel/${i}`, full));
  }
  return doc;
}

const presentKeys = (doc: JsonObject) => Object.keys(doc).join(', ');

/** `count` valid shell descriptors: the first has every optional property (recursively), the second none. */
export function validShellDescriptors(seed = 1, count = 12): ValidCase[] {
  const rnd = seededRandom(seed);
  return Array.from({ length: count }, (_, n) => {
    const doc = n === 1 ? { id: `urn:example:aas:minimal:${seed}` } : shellDescriptor(rnd, n, n === 0);
    return { label: `generated shell descriptor #${n} (seed ${seed}): ${presentKeys(doc)}`, doc };
  });
}

/** `count` valid submodel descriptors: the first has every optional property, the second only the required. */
export function validSubmodelDescriptors(seed = 1, count = 12): ValidCase[] {
  const rnd = seededRandom(seed);
  return Array.from({ length: count }, (_, n) => {
    const doc =
      n === 1
        ? { id: `urn:example:sm:minimal:${seed}`, endpoints: [{ interface: 'SUBMODEL-3.0', protocolInformation: { href: 'https://localhost/sm' } }] }
        : submodelDescriptor(rnd, `https://example.org/sm/${seed}/${n}`, n === 0);
    return { label: `generated submodel descriptor #${n} (seed ${seed}): ${presentKeys(doc)}`, doc };
  });
}

/** The descriptor of `kind` that holds every property the schema defines, at every level. */
export function completeDescriptor(kind: DescriptorKind): JsonObject {
  return (kind === 'shell' ? validShellDescriptors(7, 1) : validSubmodelDescriptors(7, 1))[0].doc;
}

// --- The schema, read from the vendored OpenAPI files

const SPEC = path.resolve(__dirname, '../../rest-facade/openapi/aas-api-v3.0.4');
const PART1_REF = /^https:\/\/api\.swaggerhub\.com\/domains\/Plattform_i40\/Part1-MetaModel-Schemas\/V3\.0\.\d#\/components\/schemas\/(\w+)$/;
const LOCAL_REF = /^#\/components\/schemas\/(\w+)$/;

type SchemaNode = Record<string, any>;

export interface Schemas {
  part1: Record<string, SchemaNode>;
  part2: Record<string, SchemaNode>;
  /** The `example` strings of the Part 2 schemas, by schema name. */
  examples: Record<string, string>;
}

export function loadSchemas(): Schemas {
  const read = (file: string) => parseYaml(fs.readFileSync(path.join(SPEC, file), 'utf8')).components.schemas as Record<string, SchemaNode>;
  const part2 = read('Part2-API-Schemas/openapi.yaml');
  const examples: Record<string, string> = {};
  for (const [name, node] of Object.entries(part2)) if (typeof node.example === 'string') examples[name] = node.example;
  return { part1: read('Part1-MetaModel-Schemas/openapi.yaml'), part2, examples };
}

/** A schema node with its `$ref`s followed and its `allOf` merged. */
type Resolved =
  | { kind: 'object'; name: string; properties: Record<string, Resolved>; required: string[] }
  | { kind: 'array'; items: Resolved; minItems?: number }
  | { kind: 'string'; maxLength?: number; minLength?: number; pattern?: string; enum?: string[] }
  /** A Part 1 (metamodel) object: checked by the metamodel library; here only its JSON type is mutated. */
  | { kind: 'metamodel'; name: string };

function resolve(schemas: Schemas, node: SchemaNode, name: string, part: 'part1' | 'part2' = 'part2'): Resolved {
  if (node.$ref) {
    const local = LOCAL_REF.exec(node.$ref);
    const remote = PART1_REF.exec(node.$ref);
    if (local) return resolve(schemas, schemas[part][local[1]], local[1], part);
    if (!remote) throw new Error(`unexpected $ref ${node.$ref}`);
    const target = schemas.part1[remote[1]];
    // Part 1 objects are the metamodel library's business; Part 1 enums (AssetKind) are strings with an enum.
    return target.type === 'string' ? resolve(schemas, target, remote[1], 'part1') : { kind: 'metamodel', name: remote[1] };
  }
  if (node.allOf || node.properties || node.type === 'object') {
    const merged = { kind: 'object' as const, name, properties: {} as Record<string, Resolved>, required: [...(node.required ?? [])] };
    for (const part_ of node.allOf ?? []) {
      const inner = resolve(schemas, part_, name, part);
      if (inner.kind !== 'object') throw new Error(`allOf of ${name} holds a ${inner.kind}`);
      Object.assign(merged.properties, inner.properties);
      merged.required.push(...inner.required);
    }
    for (const [key, inner] of Object.entries(node.properties ?? {})) merged.properties[key] = resolve(schemas, inner as SchemaNode, `${name}.${key}`, part);
    return merged;
  }
  if (node.type === 'array') return { kind: 'array', items: resolve(schemas, node.items, `${name} item`, part), minItems: node.minItems };
  if (node.type === 'string') return { kind: 'string', maxLength: node.maxLength, minLength: node.minLength, pattern: node.pattern, enum: node.enum };
  throw new Error(`unexpected schema node for ${name}: ${JSON.stringify(node)}`);
}

export const SCHEMA_NAMES: Record<DescriptorKind, string> = { shell: 'AssetAdministrationShellDescriptor', submodel: 'SubmodelDescriptor' };

export function descriptorSchema(schemas: Schemas, kind: DescriptorKind): Resolved {
  return resolve(schemas, schemas.part2[SCHEMA_NAMES[kind]], SCHEMA_NAMES[kind]);
}

// --- Mutations

type Step = string | number;
const DELETE = Symbol('delete');

const pathOf = (steps: Step[]) => steps.reduce<string>((text, step) => (typeof step === 'number' ? `${text}[${step}]` : `${text}.${step}`), '$');

/** A copy of `doc` with the value at `steps` replaced (or deleted). */
export function withValue(doc: Json, steps: Step[], value: Json | typeof DELETE): Json {
  if (!steps.length) return value;
  const copy = structuredClone(doc) as Record<Step, Json>;
  let node = copy;
  for (const step of steps.slice(0, -1)) node = node[step] as Record<Step, Json>;
  const last = steps[steps.length - 1];
  if (value === DELETE) delete node[last];
  else Object.defineProperty(node, last, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

const valueAt = (doc: Json, steps: Step[]) => steps.reduce<Json>((node, step) => (node as Record<Step, Json>)[step], doc);

/** A string of `length` characters that meets every other rule on identifiers, idShorts and texts. */
const filler = (length: number) => 'a'.repeat(length);

interface SchemaCases {
  valid: ValidCase[];
  invalid: InvalidCase[];
}

/**
 * Walks `doc` (which must hold every property of `schema`, each array with at least one item) alongside `schema`,
 * and derives from each rule met the cases that break it and the cases at its limit. Arrays are followed into their
 * first item.
 */
function walk(schema: Resolved, doc: Json, steps: Step[], out: SchemaCases, root: Json): void {
  const at = pathOf(steps);
  const invalid = (label: string, value: Json | typeof DELETE, where: Step[] = steps) =>
    out.invalid.push({ label: `[schema] ${at}: ${label}`, doc: withValue(root, where, value), path: pathOf(where) });
  const valid = (label: string, value: Json | typeof DELETE, where: Step[] = steps) => out.valid.push({ label: `[schema] ${at}: ${label}`, doc: withValue(root, where, value) as JsonObject });
  const node = doc;
  switch (schema.kind) {
    case 'object': {
      if (steps.length) {
        invalid('an array for an object', []);
        invalid('a string for an object', 'object');
        invalid('null for an object', null);
      }
      invalid(`an unknown property (${schema.name} defines none such)`, 'surprise', [...steps, 'unexpectedProperty']);
      for (const [key, inner] of Object.entries(schema.properties)) {
        const object = node as JsonObject;
        if (!Object.hasOwn(object, key)) throw new Error(`the complete descriptor lacks ${at}.${key}`);
        if (schema.required.includes(key)) invalid(`required ${key} missing`, DELETE, [...steps, key]);
        else valid(`optional ${key} left out`, DELETE, [...steps, key]);
        walk(inner, object[key], [...steps, key], out, root);
      }
      return;
    }
    case 'metamodel':
      invalid(`an array for a ${schema.name}`, []);
      invalid(`a number for a ${schema.name}`, 7);
      invalid(`null for a ${schema.name}`, null);
      return;
    case 'array': {
      const items = node as Json[];
      if (!items.length) throw new Error(`the complete descriptor has no items at ${at}`);
      invalid('an object for an array', {});
      invalid('a string for an array', 'list');
      invalid('null for an array', null);
      if (schema.minItems) {
        invalid(`fewer than minItems ${schema.minItems}`, items.slice(0, schema.minItems - 1));
        valid(`exactly minItems ${schema.minItems}`, items.slice(0, schema.minItems));
      } else {
        valid('empty (no minItems)', []);
      }
      walk(schema.items, items[0], [...steps, 0], out, root);
      return;
    }
    case 'string':
      invalid('a number for a string', 42);
      invalid('a boolean for a string', true);
      invalid('null for a string', null);
      if (schema.maxLength !== undefined) {
        invalid(`maxLength ${schema.maxLength} + 1`, filler(schema.maxLength + 1));
        valid(`exactly maxLength ${schema.maxLength}`, filler(schema.maxLength));
      }
      if (schema.minLength) invalid(`shorter than minLength ${schema.minLength}`, filler(schema.minLength - 1));
      if (schema.pattern) {
        // The pattern admits the characters XML can carry: NUL, U+FFFE and an unpaired surrogate are not among them.
        invalid('a NUL character against the pattern', 'urn:a\u0000b');
        invalid('U+FFFE against the pattern', 'urn:a\ufffe');
        invalid('an unpaired surrogate against the pattern', 'urn:a\ud800b');
        valid('characters outside the BMP (the pattern allows paired surrogates)', 'urn:a😀\u{10fffd}');
      }
      if (schema.enum) {
        invalid(`a value not in the enum ${schema.enum.join('|')}`, 'NotInTheEnum');
        invalid('an enum value in the wrong case', schema.enum[0].toLowerCase());
        for (const value of schema.enum) valid(`enum value ${value}`, value);
      }
  }
}

/** The cases the Part 2 schema itself dictates for descriptors of `kind`. */
export function schemaCases(schemas: Schemas, kind: DescriptorKind): SchemaCases {
  const out: SchemaCases = { valid: [], invalid: [] };
  const doc = completeDescriptor(kind);
  walk(descriptorSchema(schemas, kind), doc, [], out, doc);
  return out;
}

// --- Hand-written cases: what the schema leaves to Part 1 (the metamodel) or does not say

/**
 * JSON Schema's maxLength counts characters (code points): 2000 characters outside the BMP are a valid id although
 * JavaScript's `length` says 4000, and one more is too long.
 */
const ASTRAL = '😀';

/** Valid descriptors the schema walk does not produce. */
export function handWrittenValidCases(kind: DescriptorKind): ValidCase[] {
  const doc = completeDescriptor(kind);
  return [
    { label: '[hand] id of 2000 characters outside the BMP (4000 UTF-16 units)', doc: withValue(doc, ['id'], ASTRAL.repeat(2000)) as JsonObject },
    { label: '[hand] idShort of one letter', doc: withValue(doc, ['idShort'], 'x') as JsonObject },
  ];
}

/** Rules that are not in the Part 2 schema's own text, broken on the complete descriptor of `kind`. */
export function handWrittenCases(kind: DescriptorKind): InvalidCase[] {
  const doc = completeDescriptor(kind);
  const cases: InvalidCase[] = [];
  const add = (label: string, steps: Step[], value: Json | typeof DELETE, blame: Step[] = steps) =>
    cases.push({ label: `[hand] ${label}`, doc: withValue(doc, steps, value), path: pathOf(blame) });

  for (const root of [null, [], 'descriptor', 42, true]) cases.push({ label: `[hand] the descriptor is ${JSON.stringify(root)}`, doc: root, path: '$' });

  // idShort: the metamodel's rule (verification.verifyIdShortType), stricter than the schema's maxLength.
  add('idShort starting with a digit', ['idShort'], '1motor');
  add('idShort with a space', ['idShort'], 'my motor');
  add('idShort with a hyphen', ['idShort'], 'my-motor');
  add('idShort empty', ['idShort'], '');

  // LangStringTextType / LangStringNameType (Part 1), verified by the library.
  add('description with a language tag that is not BCP 47', ['description', 0, 'language'], 'english!', ['description', 0]);
  add('description text longer than 1023 characters', ['description', 0, 'text'], 'x'.repeat(1024), ['description', 0]);
  add('description text empty', ['description', 0, 'text'], '', ['description', 0]);
  add('description without language', ['description', 0, 'language'], DELETE, ['description', 0]);
  add('description item with an unknown property', ['description', 0, 'translator'], 'me', ['description', 0]);
  add('displayName text longer than 128 characters', ['displayName', 0, 'text'], 'x'.repeat(129), ['displayName', 0]);
  add('displayName language a number', ['displayName', 0, 'language'], 7, ['displayName', 0]);

  // Extension (Part 1).
  add('extension with an empty name', ['extensions', 0, 'name'], '', ['extensions', 0]);
  add('extension value not of its valueType', ['extensions', 0], { name: 'n', valueType: 'xs:int', value: 'forty-two' });
  add('extension with an unknown valueType', ['extensions', 0, 'valueType'], 'xs:decimalish', ['extensions', 0]);
  add('extension refersTo empty (minItems 1)', ['extensions', 0, 'refersTo'], [], ['extensions', 0]);
  add('extension with a modelType (Extension has none)', ['extensions', 0, 'modelType'], 'Extension', ['extensions', 0]);

  // AdministrativeInformation (Part 1).
  add('administration with a revision but no version (AASd-005)', ['administration', 'version'], DELETE, ['administration']);
  add('administration version not a number', ['administration', 'version'], 'v1', ['administration']);
  add('administration templateId empty', ['administration', 'templateId'], '', ['administration']);

  add('id of 2001 characters outside the BMP', ['id'], ASTRAL.repeat(2001));
  // An unpaired surrogate and characters XML cannot carry, in identifiers.
  add('id with an unpaired low surrogate', ['id'], 'urn:\udc00');
  add('id with a control character', ['id'], 'urn:a\u0001b');
  add('id with U+FFFF', ['id'], 'urn:\uffff');

  // Endpoints: further items, and strings inside arrays.
  add('second endpoint null', ['endpoints', 1], null);
  add('second endpoint without protocolInformation', ['endpoints', 1, 'protocolInformation'], DELETE);
  add('endpointProtocolVersion item a number', ['endpoints', 0, 'protocolInformation', 'endpointProtocolVersion', 1], 2);
  add('securityAttributes item with an unknown property', ['endpoints', 0, 'protocolInformation', 'securityAttributes', 1, 'usage'], 'tls');

  if (kind === 'shell') {
    add('globalAssetId with a control character', ['globalAssetId'], 'urn:\u0008');
    // SpecificAssetId (Part 1).
    add('specificAssetId semanticId with no keys', ['specificAssetIds', 0, 'semanticId', 'keys'], [], ['specificAssetIds', 0]);
    add('specificAssetId externalSubjectId a model reference (AASd-133)', ['specificAssetIds', 0, 'externalSubjectId'], model('Submodel', 'urn:x'), ['specificAssetIds', 0]);
    add('specificAssetId without value', ['specificAssetIds', 0, 'value'], DELETE, ['specificAssetIds', 0]);
    add('specificAssetId name longer than 64 characters', ['specificAssetIds', 1, 'name'], 'n'.repeat(65), ['specificAssetIds', 1]);
    add('specificAssetId value empty', ['specificAssetIds', 1, 'value'], '', ['specificAssetIds', 1]);
    add('specificAssetId a string', ['specificAssetIds', 1], 'serialNumber=1');
    // Submodel descriptors inside a shell descriptor.
    const second = valueAt(doc, ['submodelDescriptors', 0, 'id']);
    add('two submodel descriptors with the same id', ['submodelDescriptors', 1, 'id'], second);
    add('submodel descriptor semanticId with no keys', ['submodelDescriptors', 0, 'semanticId', 'keys'], [], ['submodelDescriptors', 0, 'semanticId']);
    add('submodel descriptor semanticId of an unknown reference type', ['submodelDescriptors', 0, 'semanticId', 'type'], 'GlobalReference', ['submodelDescriptors', 0, 'semanticId']);
    add('submodel descriptor supplementalSemanticId key of an unknown key type', ['submodelDescriptors', 0, 'supplementalSemanticId', 0, 'keys', 0, 'type'], 'Bogus', ['submodelDescriptors', 0, 'supplementalSemanticId', 0]);
    add('third submodel descriptor with a bad idShort', ['submodelDescriptors', 2, 'idShort'], '_x');
    add('third submodel descriptor without endpoints', ['submodelDescriptors', 2, 'endpoints'], DELETE);
  } else {
    add('semanticId with no keys', ['semanticId', 'keys'], [], ['semanticId']);
    add('semanticId key with an empty value', ['semanticId', 'keys', 0, 'value'], '', ['semanticId']);
    add('semanticId without type', ['semanticId', 'type'], DELETE, ['semanticId']);
    add('semanticId with an unknown property', ['semanticId', 'kind'], 'global', ['semanticId']);
    add('second supplementalSemanticId a model reference with no keys', ['supplementalSemanticId', 1, 'keys'], [], ['supplementalSemanticId', 1]);
  }
  return cases;
}

// --- Fuzzing

const KEYS = [
  'id', 'idShort', 'endpoints', 'interface', 'protocolInformation', 'href', 'securityAttributes', 'type', 'key', 'value',
  'description', 'displayName', 'extensions', 'administration', 'assetKind', 'specificAssetIds', 'submodelDescriptors',
  'semanticId', 'supplementalSemanticId', 'keys', 'language', 'text', 'name', '__proto__', 'constructor', 'toString', '',
];
const STRINGS = ['', 'a', 'Instance', 'NONE', 'en', 'https://x', '\u0000', '\ud800', '😀', 'x'.repeat(3000), '1abc', 'ExternalReference', 'GlobalReference'];

/** A random JSON value, nested at most `depth` levels, built as JSON.parse would (own `__proto__` keys included). */
export function randomJson(rnd: Rnd, depth = 4): Json {
  const choice = rnd.int(depth > 0 ? 8 : 5);
  switch (choice) {
    case 0:
      return null;
    case 1:
      return rnd.next() < 0.5;
    case 2:
      return rnd.pick([0, -1, 1.5, 1e308, 2 ** 53]);
    case 3:
    case 4:
      return rnd.pick(STRINGS);
    case 5:
      return Array.from({ length: rnd.int(4) }, () => randomJson(rnd, depth - 1));
    default:
      return Object.fromEntries(Array.from({ length: rnd.int(5) }, () => [rnd.pick(KEYS), randomJson(rnd, depth - 1)]));
  }
}

/** Every path inside `doc`, the root included. */
function allSteps(doc: Json, steps: Step[] = [], out: Step[][] = []): Step[][] {
  out.push(steps);
  if (Array.isArray(doc)) doc.forEach((item, i) => allSteps(item, [...steps, i], out));
  else if (doc !== null && typeof doc === 'object') for (const [key, inner] of Object.entries(doc)) allSteps(inner, [...steps, key], out);
  return out;
}

/** `doc` with one random place replaced by random JSON, removed, or given a random extra property. */
export function mutateRandomly(doc: Json, rnd: Rnd): Json {
  const steps = rnd.pick(allSteps(doc));
  const node = valueAt(doc, steps);
  const roll = rnd.int(3);
  if (roll === 0 && steps.length) return withValue(doc, steps, DELETE);
  if (roll === 1 && node !== null && typeof node === 'object' && !Array.isArray(node)) return withValue(doc, [...steps, rnd.pick(KEYS)], randomJson(rnd, 2));
  return withValue(doc, steps, randomJson(rnd, 3));
}
