import sax from 'sax';
import { AAS_V2_NAMESPACE } from '../xml/v2';
import { AasxError, quoteName } from './errors';

/**
 * The package's own XML parts ([Content_Types].xml and the .rels files) are read with sax in strict mode,
 * namespaces on, and a DOCTYPE is an error the moment it is seen: no DTD means no external entity (XXE) and no
 * entity expansion (billion laughs); sax itself never expands anything but the five predefined entities.
 */

export interface XmlElement {
  /** Local name. */
  local: string;
  uri: string;
  /** Attributes without a namespace, by name. */
  attributes: Record<string, string>;
  /** 0 for the root element. */
  depth: number;
}

export function decodeXmlText(bytes: Buffer): string {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  return new TextDecoder('utf-8').decode(bytes); // TextDecoder drops a UTF-8 byte order mark
}

class StopParsing extends Error {}

/** Calls onElement for every start tag; throws AasxError for a DOCTYPE or XML that is not well-formed. */
export function parseXmlPart(text: string, partName: string, onElement: (element: XmlElement) => void): void {
  const parser = sax.parser(true, { xmlns: true, strictEntities: true } as sax.SAXOptions);
  let depth = 0;
  let failure: Error | undefined;
  parser.ondoctype = () => {
    throw new AasxError(`Part ${quoteName(partName)} has a DOCTYPE declaration, which is not allowed`);
  };
  parser.onopentag = (tag) => {
    const qualified = tag as sax.QualifiedTag;
    const attributes: Record<string, string> = {};
    for (const attribute of Object.values(qualified.attributes)) {
      if (attribute.uri === '' && attribute.prefix !== 'xmlns' && attribute.name !== 'xmlns') {
        attributes[attribute.local] = attribute.value;
      }
    }
    onElement({ local: qualified.local, uri: qualified.uri, attributes, depth });
    depth++;
  };
  parser.onclosetag = () => {
    depth--;
  };
  parser.onerror = (error) => {
    failure ??= error;
    throw error;
  };
  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof AasxError) throw error;
    const reason = (failure ?? (error as Error)).message.split('\n')[0];
    throw new AasxError(`Part ${quoteName(partName)} is not well-formed XML: ${reason}`, { cause: error });
  }
}

export { AAS_V2_NAMESPACE };

/**
 * Whether an XML document's root element is in the AAS V2.0 namespace (V2 packages are common in the wild;
 * the caller can then say so instead of reporting V3 validation errors). Reads no further than the root tag.
 */
export function isAasV2Xml(text: string): boolean {
  return xmlRootNamespace(text) === AAS_V2_NAMESPACE;
}

/**
 * The namespace of an XML document's root element, which says the AAS version it is of; undefined when the
 * document has no root element that sax reads before a DOCTYPE or an error. Reads no further than the root tag.
 */
export function xmlRootNamespace(text: string): string | undefined {
  const parser = sax.parser(true, { xmlns: true, strictEntities: true } as sax.SAXOptions);
  let uri: string | undefined;
  parser.ondoctype = () => {
    throw new StopParsing();
  };
  parser.onopentag = (tag) => {
    uri = (tag as sax.QualifiedTag).uri;
    throw new StopParsing();
  };
  parser.onerror = (error) => {
    throw error;
  };
  try {
    parser.write(text.replace(/^\uFEFF/, '')).close();
  } catch {
    // StopParsing after the root tag, or not XML at all: either way the answer is in uri.
  }
  return uri;
}
