import fs from 'node:fs';
import path from 'node:path';
import { memoryPages, validateXML } from 'xmllint-wasm';

/**
 * xmllint takes every document's name on its command line, which WebAssembly xmllint keeps on a small stack: ~1,000
 * long names overran it (memory access out of bounds). So the documents go in batches, under short names.
 */
const BATCH = 500;

/**
 * Validates XML documents against an XML schema with libxml2's xmllint, compiled to WebAssembly (no system
 * package). The schema's imports are found beside it: every other `.xsd` of its folder is loaded with it, and the
 * files `imports` names (under their file names: an import names one so). Returns what is wrong: xmllint's
 * messages, and the documents it gave no verdict on; nothing when all of them validate. `amend` may change the
 * schema's text before it is used.
 */
export async function xsdProblems(
  xsd: string,
  documents: { name: string; contents: string }[],
  imports: string[] = [],
  amend: (schema: string) => string = (schema) => schema,
): Promise<string[]> {
  const folder = path.dirname(xsd);
  const schema = { fileName: path.basename(xsd), contents: amend(fs.readFileSync(xsd, 'utf8')) };
  const preload = fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.xsd') && name !== schema.fileName)
    .map((fileName) => ({ fileName, contents: fs.readFileSync(path.join(folder, fileName), 'utf8') }))
    .concat(imports.map((file) => ({ fileName: path.basename(file), contents: fs.readFileSync(file, 'utf8') })));
  const problems: string[] = [];
  for (let start = 0; start < documents.length; start += BATCH) {
    const batch = documents.slice(start, start + BATCH);
    const result = await validateXML({
      xml: batch.map(({ contents }, i) => ({ fileName: `${i}.xml`, contents })),
      schema,
      preload,
      // Started at the default 16 MiB, its memory failed to grow (memory access out of bounds); started large, it holds.
      initialMemoryPages: 256 * memoryPages.MiB,
      maxMemoryPages: memoryPages.GiB,
    });
    // Lines begin with the document's short name (`12.xml validates`, `12.xml:3: element ...`): say its real name.
    const lines = result.rawOutput
      .split('\n')
      .filter(Boolean)
      .map((line) => line.replace(/^(\d+)\.xml\b/, (short, i: string) => batch[Number(i)]?.name ?? short));
    const validated = new Set(lines.filter((line) => line.endsWith(' validates')).map((line) => line.slice(0, -' validates'.length)));
    problems.push(...lines.filter((line) => !line.endsWith(' validates')), ...batch.filter((d) => !validated.has(d.name)).map((d) => `${d.name}: no verdict`));
  }
  return problems;
}
