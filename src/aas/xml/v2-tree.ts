import sax from 'sax';
import { ELEMENT_DEPTH_RULE, MAX_LEGACY_XML_DEPTH } from '../../common/json-depth';

/**
 * Reads an XML document into a small element tree for the V2.0 converter (src/aas/xml/v2.ts). sax runs in
 * strict mode with namespaces on; a DOCTYPE is an error the moment it is seen, so there is no DTD, no external
 * entity (XXE) and no entity expansion (billion laughs): sax knows only the five predefined entities and
 * character references, and any other entity reference is an error. Size, depth and element count are bounded
 * so that the tree stays proportionate to a real AAS model.
 */

/** Every problem that makes a document unconvertible; the message is written for the client (a 400). */
export class V2XmlError extends Error {
  override readonly name = 'V2XmlError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export interface XmlLimits {
  /** Characters of the decoded document. */
  maxChars: number;
  /** Element nesting; the root element is at depth 1. */
  maxDepth: number;
  /** Elements in the whole document. */
  maxElements: number;
}

export const DEFAULT_XML_LIMITS: XmlLimits = {
  maxChars: 64 * 1024 * 1024,
  // A V2 submodel element collection costs three element levels (submodelElement, the kind, value) against two
  // JSON levels: the converted document of any depth this takes meets the element rule or is refused by it.
  maxDepth: MAX_LEGACY_XML_DEPTH,
  maxElements: 2_000_000,
};

export interface XmlNode {
  local: string;
  uri: string;
  /** Attributes without a namespace, by local name. */
  attributes: Record<string, string>;
  children: XmlNode[];
  /** The element's own character data (text and CDATA), unaltered. */
  text: string;
  parent: XmlNode | undefined;
  /** 1-based position among the parent's children of the same local name. */
  position: number;
  /** How many of the parent's children have this local name. */
  namesakes: number;
}

/** An XPath-like location for warnings: `/aasenv/submodels/submodel[2]/submodelElements/submodelElement[3]`. */
export function pathOf(node: XmlNode): string {
  const steps: string[] = [];
  for (let at: XmlNode | undefined = node; at; at = at.parent) {
    steps.push(at.namesakes > 1 ? `${at.local}[${at.position}]` : at.local);
  }
  return `/${steps.reverse().join('/')}`;
}

const ENCODING = /^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/;

/** Decodes by byte order mark, else by the XML declaration's encoding, else as UTF-8. */
export function decodeXml(bytes: Buffer): string {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  const declared = ENCODING.exec(bytes.subarray(0, 200).toString('latin1'))?.[1]?.toLowerCase();
  if (declared && declared !== 'utf-8' && declared !== 'utf8') {
    let decoded: string;
    try {
      decoded = new TextDecoder(declared).decode(bytes);
    } catch {
      throw new V2XmlError(`The XML declares the encoding '${declared}', which is not supported`);
    }
    return decoded;
  }
  return new TextDecoder('utf-8').decode(bytes); // drops a UTF-8 byte order mark
}

class Refused extends Error {}

/** Parses `text` into a tree; throws V2XmlError for anything that is not well-formed, safe, bounded XML. */
export function readXmlTree(text: string, limits: XmlLimits = DEFAULT_XML_LIMITS): XmlNode {
  if (text.length > limits.maxChars) {
    throw new V2XmlError(`The XML document is larger than ${limits.maxChars} characters`);
  }
  const parser = sax.parser(true, { xmlns: true, position: true, strictEntities: true } as sax.SAXOptions);
  let root: XmlNode | undefined;
  const open: XmlNode[] = [];
  // Per open element: how many of its children so far have each local name.
  const counts: Map<string, number>[] = [];
  let elements = 0;
  let refusal: string | undefined;
  let failure: Error | undefined;
  const refuse = (message: string): never => {
    refusal = message;
    throw new Refused(message);
  };
  parser.ondoctype = () => refuse('The XML document has a DOCTYPE declaration, which is not allowed (no DTDs, no entities)');
  parser.onopentag = (tag) => {
    const qualified = tag as sax.QualifiedTag;
    if (++elements > limits.maxElements) refuse(`The XML document has more than ${limits.maxElements} elements`);
    if (open.length + 1 > limits.maxDepth) refuse(`${ELEMENT_DEPTH_RULE} (${limits.maxDepth} XML elements); the document nests deeper`);
    const attributes: Record<string, string> = {};
    for (const attribute of Object.values(qualified.attributes)) {
      if (attribute.uri === '' && attribute.prefix !== 'xmlns' && attribute.name !== 'xmlns') {
        attributes[attribute.local] = attribute.value;
      }
    }
    const parent = open[open.length - 1];
    const node: XmlNode = { local: qualified.local, uri: qualified.uri, attributes, children: [], text: '', parent, position: 1, namesakes: 1 };
    if (parent) {
      const seen = counts[counts.length - 1];
      node.position = (seen.get(node.local) ?? 0) + 1;
      seen.set(node.local, node.position);
      parent.children.push(node);
    } else {
      root = node;
    }
    open.push(node);
    counts.push(new Map());
  };
  parser.onclosetag = () => {
    const node = open.pop()!;
    const seen = counts.pop()!;
    for (const child of node.children) child.namesakes = seen.get(child.local)!;
  };
  parser.ontext = (chunk) => {
    const at = open[open.length - 1];
    if (at) at.text += chunk;
  };
  parser.oncdata = parser.ontext;
  parser.onerror = (error) => {
    failure ??= error;
    throw error;
  };
  try {
    parser.write(text.replace(/^\uFEFF/, '')).close();
  } catch (error) {
    if (refusal) throw new V2XmlError(refusal);
    const reason = (failure ?? (error as Error)).message.split('\n')[0];
    throw new V2XmlError(`The document is not well-formed XML: ${reason}`, { cause: error });
  }
  if (!root) throw new V2XmlError('The document is not XML: it has no root element');
  return root;
}
