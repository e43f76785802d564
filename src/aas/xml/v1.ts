import { Converter, present, type Json, type V2Conversion } from './v2';
import { DEFAULT_XML_LIMITS, V2XmlError, decodeXml, readXmlTree, type XmlLimits, type XmlNode } from './v2-tree';

/**
 * Converts an AAS V1.0 XML environment (`http://www.admin-shell.io/aas/1/0`, what the AASX Package Explorer wrote
 * until 2019) into the V3.0 JSON environment. V1.0 is V2.0 (`v2.ts`) but for these parts, mapped as follows:
 * - a qualifier's `qualifierType`, `qualifierValue`, `qualifierValueId` are V2.0's `type`, `value`, `valueId`
 *   (V1.0 has no value type: xs:string, with a warning);
 * - an operation's `in` and `out` variables are submodel elements of their own around the value: the value is the
 *   V3.0 operation variable, the variable's own idShort, description and semantic id are dropped with a warning;
 * - `hasDataSpecification` beside the embedded data specifications is a reference to a template without content,
 *   which V3.0 has no place for (dropped with a warning); inside an embedded data specification it is the
 *   template's reference, which V3.0 names anew;
 * - IEC 61360 `shortName` is a plain text (V3.0: text with a language; taken as English, with a warning) and
 *   `sourceOfDefinition` a text per language (V3.0: one text; the English one, else the first, is kept);
 * - key types `RelationShipElement` and `ISubmodelElement` are V3.0's `RelationshipElement` and `SubmodelElement`;
 * - identifiables of one id (V1.0 writers repeat concept descriptions, once per use): a copy of the same content is
 *   left out with a warning (as in every version); of copies with other content the import keeps the first.
 */

export const AAS_V1_NAMESPACE = 'http://www.admin-shell.io/aas/1/0';
const IEC61360_V1_NAMESPACE = 'http://www.admin-shell.io/IEC61360/1/0';
const V1_NAMESPACES: ReadonlySet<string> = new Set([AAS_V1_NAMESPACE, IEC61360_V1_NAMESPACE]);

export function convertV1Xml(xml: string | Buffer, limits: XmlLimits = DEFAULT_XML_LIMITS): V2Conversion {
  const text = typeof xml === 'string' ? xml : decodeXml(xml);
  const root = readXmlTree(text, limits);
  if (root.local !== 'aasenv' || root.uri !== AAS_V1_NAMESPACE) {
    const found = root.uri ? `{${root.uri}}${root.local}` : root.local;
    throw new V2XmlError(
      `The document is not an AAS V1.0 environment: its root element is ${found}, not {${AAS_V1_NAMESPACE}}aasenv. ` +
        'Open it in the AASX Package Explorer and save it as V3.0 to import it.',
    );
  }
  const converter = new V1Converter(V1_NAMESPACES);
  const environment = converter.environment(root);
  return { environment, warnings: converter.report() };
}

const OPERATION_VARIABLES = [['in', 'inputVariables'], ['out', 'outputVariables']] as const;

class V1Converter extends Converter {
  protected override get identifiableParts(): string[] {
    return [...super.identifiableParts, 'hasDataSpecification'];
  }
  protected override get elementParts(): string[] {
    return [...super.elementParts, 'hasDataSpecification'];
  }

  protected override dataSpecifications(node: XmlNode, out: Json, name?: string): void {
    super.dataSpecifications(node, out, name);
    // V1.0 writes these as <hasDataSpecification><reference><keys>..., some writers without the <reference>.
    for (const references of this.all(node, 'hasDataSpecification')) {
      this.expect(references, ['reference', 'keys']);
      const count = this.all(references, 'reference').filter((r) => this.keysOf(r).length).length + (this.keysOf(references).length ? 1 : 0);
      if (count) this.warn(references, `${count} reference(s) to a data specification without its content dropped (V3.0 embeds data specifications with their content)`);
    }
  }

  protected override get qualifierMarker(): string {
    return 'qualifierType';
  }

  protected override bareQualifier(node: XmlNode): Json | undefined {
    this.expect(node, ['semanticId', 'qualifierType', 'qualifierValue', 'qualifierValueId']);
    const type = this.str(node, 'qualifierType');
    if (type === undefined) {
      this.warn(node, 'qualifier without qualifierType (left out)');
      return undefined;
    }
    const out: Json = { type, valueType: 'xs:string' };
    this.warn(node, 'qualifier without value type (V1.0 has none): xs:string');
    const semanticId = this.optionalReference(node, 'semanticId');
    if (semanticId) out.semanticId = semanticId;
    this.value(node, out, 'xs:string', 'qualifierValue');
    if (out.qualifierValue !== undefined) {
      out.value = out.qualifierValue;
      delete out.qualifierValue;
    }
    const valueId = this.optionalReference(node, 'qualifierValueId');
    if (valueId) out.valueId = valueId;
    return out;
  }

  protected override element(node: XmlNode): Json | undefined {
    if (node.local !== 'operation') return super.element(node);
    return this.common(node, 'Operation', OPERATION_VARIABLES.map(([v1]) => v1), (out) => {
      for (const [v1, v3] of OPERATION_VARIABLES) {
        const variables = this.all(node, v1).map((variable) => this.operationVariable(variable)).filter(present);
        if (variables.length) out[v3] = variables;
      }
    });
  }

  /** A V1.0 operation variable: a submodel element around its value, which alone V3.0 keeps. */
  private operationVariable(variable: XmlNode): Json | undefined {
    this.expect(variable, [...this.elementParts, 'value']);
    const value = this.child(variable, 'value');
    const inner = value ? this.kids(value) : [];
    const element = !value
      ? undefined
      : inner.length === 1 && inner[0].local === 'submodelElement'
        ? this.wrapped(inner[0])
        : this.wrapped(value);
    if (!element) {
      if (!value) this.warn(variable, 'operation variable without value (left out)');
      return undefined;
    }
    const own: string[] = [];
    const idShort = this.str(variable, 'idShort');
    if (idShort !== undefined && idShort !== element.idShort) own.push(`idShort '${idShort}'`);
    if (this.langStrings(this.child(variable, 'description'))) own.push('description');
    if (this.optionalReference(variable, 'semanticId')) own.push('semanticId');
    if (own.length) this.warn(variable, `${own.join(', ')} of the operation variable dropped (a V3.0 operation variable is only its value)`);
    return { value: element };
  }

  protected override iec61360(node: XmlNode): Json | undefined {
    const out = super.iec61360(node);
    if (!out) return out;
    const shortName = this.child(node, 'shortName');
    const shortText = shortName && !this.kids(shortName).length ? shortName.text.trim() : '';
    if (shortText) {
      out.shortName = [{ language: 'en', text: shortText }];
      this.warn(shortName!, 'shortName without language (V1.0 has none): taken as English');
    }
    const source = this.child(node, 'sourceOfDefinition');
    const texts = this.langStrings(source);
    if (source && texts) {
      const kept = texts.find((t) => /^en\b/i.test(String(t.language))) ?? texts[0];
      out.sourceOfDefinition = kept.text;
      const others = texts.filter((t) => t !== kept && t.text !== kept.text);
      if (others.length) {
        this.warn(source, `sourceOfDefinition in ${texts.length} languages: the '${kept.language}' text kept, ${others.map((t) => `'${t.language}'`).join(', ')} dropped (V3.0 has one text)`);
      }
    }
    return out;
  }
}
