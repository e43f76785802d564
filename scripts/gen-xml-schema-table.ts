/**
 * Development-time generator of src/aas/xml/schema-table.ts: reads the AAS V3.0 XML schema (AAS.xsd) and the
 * metamodel library's JSON serializer once, and writes, per class, the ordered list of its XML elements with
 * their kind (text, boolean, base64, enumeration, class, list of a class, polymorphic choice, list of choices).
 * The reader and the writer are driven by that table; nothing reads the XSD at run time.
 *
 *   node -r @swc-node/register scripts/gen-xml-schema-table.ts [path/to/AAS.xsd] > src/aas/xml/schema-table.ts
 *
 * test/unit/xml.test.ts regenerates the table and fails when the committed one is stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import sax from 'sax';

interface XsdNode {
  name: string;
  attributes: Record<string, string>;
  children: XsdNode[];
}

function parseXsd(text: string): XsdNode {
  const parser = sax.parser(true, { xmlns: false, strictEntities: true } as sax.SAXOptions);
  const root: XsdNode = { name: '#document', attributes: {}, children: [] };
  const open: XsdNode[] = [root];
  parser.onopentag = (tag) => {
    const node: XsdNode = { name: tag.name, attributes: tag.attributes as Record<string, string>, children: [] };
    open[open.length - 1].children.push(node);
    open.push(node);
  };
  parser.onclosetag = () => void open.pop();
  parser.onerror = (error) => {
    throw error;
  };
  parser.write(text).close();
  return root.children[0];
}

const child = (node: XsdNode, name: string) => node.children.find((c) => c.name === name);
const only = (node: XsdNode) => {
  if (node.children.length !== 1) throw new Error(`expected one child in ${node.name} ${JSON.stringify(node.attributes)}`);
  return node.children[0];
};

export type Kind = 'string' | 'boolean' | 'base64' | 'enum' | 'class' | 'list' | 'choice' | 'choiceList';

export interface GeneratedProperty {
  name: string;
  kind: Kind;
  /** enum: the enumeration; class, list: the class; choice, choiceList: the choice group. */
  type?: string;
  /** list: the element name of the items. */
  item?: string;
  required: boolean;
}

/** The classes the official JSON serialization writes with a `modelType`, read from the library's serializer. */
export function classesWithModelType(jsonizationSource: string): Set<string> {
  return new Set([...jsonizationSource.matchAll(/jsonable\["modelType"\] = "(\w+)"/g)].map((m) => m[1]));
}

export function generateSchemaTable(xsdText: string, modelTypes: Set<string>): string {
  const schema = parseXsd(xsdText);
  const groups = new Map<string, XsdNode>();
  const simpleTypes = new Map<string, XsdNode>();
  const complexTypes = new Set<string>();
  for (const node of schema.children) {
    if (node.name === 'xs:group') groups.set(node.attributes.name, node);
    else if (node.name === 'xs:simpleType') simpleTypes.set(node.attributes.name, node);
    else if (node.name === 'xs:complexType') complexTypes.add(node.attributes.name);
  }

  const enums: Record<string, string[]> = {};
  const choices: Record<string, string[]> = {};
  const classes: Record<string, { modelType?: string; properties: GeneratedProperty[] }> = {};

  /** The kind of a simple type: its own restriction, or a named type. */
  function simpleKind(type: string): { kind: Kind; type?: string } {
    if (type === 'xs:boolean') return { kind: 'boolean' };
    if (type === 'xs:base64Binary') return { kind: 'base64' };
    if (type === 'xs:string') return { kind: 'string' };
    const simple = simpleTypes.get(type);
    if (!simple) throw new Error(`unknown simple type ${type}`);
    const restriction = only(simple);
    const values = restriction.children.filter((c) => c.name === 'xs:enumeration').map((c) => c.attributes.value);
    if (values.length) {
      const name = type.replace(/_t$/, '');
      enums[name] = values;
      return { kind: 'enum', type: name };
    }
    return simpleKind(restriction.attributes.base);
  }

  function choiceOf(ref: string): string {
    const name = ref.replace(/_choice$/, '');
    if (!choices[name]) {
      const choice = only(groups.get(ref)!);
      choices[name] = choice.children.map((element) => {
        if (element.attributes.type !== `${element.attributes.name}_t`) throw new Error(`choice ${ref}: ${element.attributes.name}`);
        return element.attributes.name;
      });
    }
    return name;
  }

  function propertyOf(element: XsdNode): GeneratedProperty {
    const name = element.attributes.name;
    const required = element.attributes.minOccurs !== '0';
    const type = element.attributes.type;
    if (type?.endsWith('_t') && complexTypes.has(type)) return { name, kind: 'class', type: type.slice(0, -2), required };
    if (type) return { name, ...simpleKind(type), required };
    const simple = child(element, 'xs:simpleType');
    if (simple) return { name, ...simpleKind(only(simple).attributes.base), required };
    const inner = only(only(child(element, 'xs:complexType')!));
    if (inner.name === 'xs:element') {
      if (inner.attributes.maxOccurs !== 'unbounded') throw new Error(`${name}: a wrapper of one element`);
      return { name, kind: 'list', type: inner.attributes.type.replace(/_t$/, ''), item: inner.attributes.name, required };
    }
    if (inner.name === 'xs:group') {
      const kind = inner.attributes.maxOccurs === 'unbounded' ? 'choiceList' : 'choice';
      return { name, kind, type: choiceOf(inner.attributes.ref), required };
    }
    throw new Error(`${name}: unexpected content ${inner.name}`);
  }

  /** The elements of a group in document order, its base groups' first. */
  function flatten(groupName: string): GeneratedProperty[] {
    const sequence = only(groups.get(groupName)!);
    if (sequence.name !== 'xs:sequence') throw new Error(`${groupName} is not a sequence`);
    return sequence.children.flatMap((item) => (item.name === 'xs:group' ? flatten(item.attributes.ref) : [propertyOf(item)]));
  }

  for (const name of [...groups.keys()].sort()) {
    if (name.endsWith('_choice') || !complexTypes.has(`${name}_t`)) continue;
    // An abstract class has a choice group of its concrete descendants that does not name itself.
    const descendants = groups.get(`${name}_choice`);
    if (descendants && !only(descendants).children.some((element) => element.attributes.name === name)) continue;
    const pascal = name[0].toUpperCase() + name.slice(1);
    classes[name] = { ...(modelTypes.has(pascal) ? { modelType: pascal } : {}), properties: flatten(name) };
  }
  for (const list of Object.values(choices)) list.sort();

  const lines = [
    '// Generated by scripts/gen-xml-schema-table.ts from the AAS V3.0 XML schema (AAS.xsd) and the JSON',
    '// serializer of @aas-core-works/aas-core3.0-typescript (which classes carry a modelType). Do not edit by hand.',
    '',
    "export type XmlKind = 'string' | 'boolean' | 'base64' | 'enum' | 'class' | 'list' | 'choice' | 'choiceList';",
    '',
    '/** One XML element of a class, in the order the schema sequence demands; JSON uses the same property name. */',
    'export interface XmlProperty {',
    '  readonly name: string;',
    '  /**',
    '   * string, boolean, base64, enum: character data. class: the element holds one instance of `type`.',
    '   * list: the element wraps items named `item`, each of class `type`. choice: the element wraps exactly one',
    '   * element of the choice group `type` (named after its class). choiceList: it wraps one or more of them.',
    '   */',
    '  readonly kind: XmlKind;',
    '  readonly type?: string;',
    '  readonly item?: string;',
    '  readonly required: boolean;',
    '}',
    '',
    'export interface XmlClass {',
    '  /** The JSON `modelType` of the class, when the official JSON serialization writes one. */',
    '  readonly modelType?: string;',
    '  readonly properties: readonly XmlProperty[];',
    '}',
    '',
    `export const AAS_NAMESPACE = '${schema.attributes.targetNamespace}';`,
    '',
    '/** Concrete classes by their XML element name (the class name in lower camel case). */',
    'export const CLASSES: Readonly<Record<string, XmlClass>> = {',
    ...Object.entries(classes).map(
      ([name, cls]) =>
        `  ${name}: {${cls.modelType ? ` modelType: '${cls.modelType}',` : ''} properties: [\n` +
        cls.properties
          .map((p) => {
            const parts = [`name: '${p.name}'`, `kind: '${p.kind}'`];
            if (p.type) parts.push(`type: '${p.type}'`);
            if (p.item) parts.push(`item: '${p.item}'`);
            parts.push(`required: ${p.required}`);
            return `    { ${parts.join(', ')} },\n`;
          })
          .join('') +
        '  ] },',
    ),
    '};',
    '',
    '/** Polymorphic choice groups: the element names (classes) each admits. */',
    'export const CHOICES: Readonly<Record<string, readonly string[]>> = {',
    ...Object.entries(choices).map(([name, list]) => `  ${name}: [${list.map((c) => `'${c}'`).join(', ')}],`),
    '};',
    '',
    '/** Enumerations: their literals, which are the same in XML and JSON. */',
    'export const ENUMS: Readonly<Record<string, readonly string[]>> = {',
    ...Object.entries(enums)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, list]) => `  ${name}: [${list.map((c) => `'${c}'`).join(', ')}],`),
    '};',
    '',
  ];
  return lines.join('\n');
}

/** The schema the repository carries (test/fixtures/aas-metamodel-v3.0, with its licence). */
export const DEFAULT_XSD = path.resolve(__dirname, '../test/fixtures/aas-metamodel-v3.0/AAS.xsd');

export function jsonizationSource(): string {
  const main = require.resolve('@aas-core-works/aas-core3.0-typescript');
  return fs.readFileSync(path.join(path.dirname(main), 'jsonization.js'), 'utf8');
}

if (require.main === module) {
  const xsd = process.argv[2] ?? DEFAULT_XSD;
  process.stdout.write(generateSchemaTable(fs.readFileSync(xsd, 'utf8'), classesWithModelType(jsonizationSource())));
}
