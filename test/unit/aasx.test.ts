import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import JSZip from 'jszip';
import sax from 'sax';
import { describe, expect, it } from 'vitest';
import { AasxError } from '../../src/aas/aasx/errors';
import type { PackageFile } from '../../src/aas/import/import.service';
import { isExternal, partName } from '../../src/aas/import/part-name';
import { type AasxPackage, readAasxPackage } from '../../src/aas/aasx/reader';
import { assignPartNames, writeAasxPackage } from '../../src/aas/aasx/writer';
import { isAasV2Xml, xmlRootNamespace } from '../../src/aas/aasx/xml';
import { readXmlEnvironment } from '../../src/aas/xml/reader';
import { AAS_V31_NAMESPACE, AAS_V31_XML } from '../../src/aas/xml/v31';
import { CONTENT_TYPES, DEFLATE_END, ENVIRONMENT, NS, buildZip, deflatedMebibyteOfZeros, minimalPackage, rels, zerosBomb, zipOf } from '../support/aasx-package';
import { AASX_DIR as TESTDATA } from '../support/testdata';
import { LOAD_SLACK_MS, medianMs } from '../support/timing';

const REAL_PACKAGES = fs.readdirSync(TESTDATA).filter((name) => name.endsWith('.aasx'));

/** Reads everything a package has, so that errors raised only while inflating surface too. */
async function readFully(input: Buffer | string, limits?: Parameters<typeof readAasxPackage>[1]): Promise<AasxPackage> {
  const pkg = await readAasxPackage(input, limits);
  for (const spec of pkg.specs) await spec.text();
  for (const file of pkg.files) await file.bytes();
  return pkg;
}

async function rejection(input: Buffer | string, limits?: Parameters<typeof readAasxPackage>[1]): Promise<AasxError> {
  const error = await readFully(input, limits).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AasxError);
  return error as AasxError;
}

function assertWellFormedXml(text: string) {
  const parser = sax.parser(true, { xmlns: true });
  let root: string | undefined;
  parser.onopentag = (tag) => {
    root ??= (tag as sax.QualifiedTag).local;
  };
  parser.write(text).close();
  expect(root).toBe('environment');
}

describe('readAasxPackage on real packages', () => {
  it.each(REAL_PACKAGES)('%s: finds the spec part and its supplementary files', async (name) => {
    const file = path.join(TESTDATA, name);
    const pkg = await readAasxPackage(file);
    expect(pkg.origin).toBe('/aasx/aasx-origin');
    expect(pkg.specs).toHaveLength(1);
    const [spec] = pkg.specs;
    expect(spec.format).toBe('xml');
    const text = await spec.text();
    expect(text.startsWith('\uFEFF')).toBe(false);
    assertWellFormedXml(text);
    expect(isAasV2Xml(text)).toBe(false);
    // The V3.1 templates are read with the V3.1 dialect of the reader.
    const dialect = xmlRootNamespace(text) === AAS_V31_NAMESPACE ? AAS_V31_XML : undefined;
    expect(readXmlEnvironment(text, { dialect }).assetAdministrationShells).toHaveLength(1);

    // The same package from memory answers the same.
    const fromBuffer = await readAasxPackage(fs.readFileSync(file));
    expect(await fromBuffer.specs[0].text()).toBe(text);

    const zip = await JSZip.loadAsync(fs.readFileSync(file));
    for (const supplementary of pkg.files) {
      const bytes = await supplementary.bytes();
      expect(bytes.length).toBe(supplementary.size);
      expect(bytes.equals(await zip.file(supplementary.path.slice(1))!.async('nodebuffer'))).toBe(true);
    }
    expect(pkg.warnings).toEqual([]);
  });

  it('lists supplementary files with their content types, and the thumbnail apart', async () => {
    const summary = async (name: string) => {
      const pkg = await readAasxPackage(path.join(TESTDATA, name));
      return {
        spec: pkg.specs[0].path,
        files: pkg.files.map((f) => [f.path, f.contentType]),
        thumbnail: pkg.thumbnail && [pkg.thumbnail.path, pkg.thumbnail.contentType],
      };
    };
    expect(await summary('IDTA_02006-3-0-1_Template_Digital_Nameplate.aasx')).toEqual({
      spec: '/aasx/DigitalNameplateAAS/DigitalNameplateAAS.aas.xml',
      files: [
        ['/aasx/files/idta-smt-badge.png', 'image/png'],
        ['/aasx/files/example_markings.png', 'image/png'],
      ],
      thumbnail: undefined,
    });
    expect(await summary('basyx_SensorExampleComplete.aasx')).toEqual({
      spec: '/aasx/data.xml',
      files: [
        ['/aasx/files/AAS_Logo.svg', 'image/svg+xml'],
        ['/aasx/files/time_series_sample.csv', 'text/csv'],
      ],
      thumbnail: ['/aasx/files/AAS_Logo1.svg', 'image/svg+xml'],
    });
    expect(await summary('basyx_fileSerializationTest.aasx')).toEqual({
      spec: '/aasx/data.xml',
      files: [
        ['/aasx/files/aas1.png', 'image/png'],
        ['/aasx/files/aas2.png', 'image/png'],
      ],
      thumbnail: ['/aasx/files/aas.png', 'image/png'],
    });
    expect((await summary('IDTA_02002-1-0-1_Template_ContactInformation.aasx')).files).toEqual([]);
  });

  it('reads a package whose relationships use the legacy www.admin-shell.io namespace', async () => {
    const zip = await JSZip.loadAsync(fs.readFileSync(path.join(TESTDATA, 'basyx_SensorExampleComplete.aasx')));
    for (const name of ['_rels/.rels', 'aasx/_rels/aasx-origin.rels', 'aasx/_rels/data.xml.rels']) {
      const text = await zip.file(name)!.async('string');
      expect(text).toContain('http://admin-shell.io/aasx/relationships/');
      zip.file(name, text.replaceAll('http://admin-shell.io/aasx/relationships/', 'http://www.admin-shell.io/aasx/relationships/'));
    }
    const pkg = await readFully(await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
    expect(pkg.specs.map((s) => s.path)).toEqual(['/aasx/data.xml']);
    expect(pkg.files.map((f) => f.path)).toEqual(['/aasx/files/AAS_Logo.svg', '/aasx/files/time_series_sample.csv']);
  });
});

/** A relationships part whose relationships carry a TargetMode: [type, target, mode]. */
function relsWithMode(...relationships: [type: string, target: string, mode: 'External' | 'Internal'][]): string {
  const items = relationships.map(([type, target, mode], i) => `<Relationship Id="X${i}" Type="${type}" Target="${target}" TargetMode="${mode}"/>`);
  return `<?xml version="1.0" encoding="utf-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${items.join('')}</Relationships>`;
}

describe('readAasxPackage: relationships marked TargetMode="External"', () => {
  const DPP = path.join(TESTDATA, 'real/published_Digital_Product_Passport_Digital_Product_Passport_Part-1_1_0_1_IDTA_02099-1_Template_Digital_Product_Passport_-_Part_1.aasx');

  it('the IDTA Digital Product Passport template (External aasx-origin and aas-spec): read, with a warning for each', async () => {
    const pkg = await readFully(DPP);
    expect(pkg.origin).toBe('/aasx/aasx-origin');
    expect(pkg.specs.map((s) => [s.path, s.format])).toEqual([['/aasx/xml/content.xml', 'xml']]);
    expect(pkg.files.map((f) => f.path)).toContain('/aasx/files/title-page.png');
    expect(pkg.files).toHaveLength(6);
    expect(pkg.warnings).toEqual([
      expect.stringMatching(/^The relationship "a2bbd0c40-7fdf-4f6a-a561-ae3750d9c4c2" of "\/" \(type http:\/\/admin-shell.io\/aasx\/relationships\/aasx-origin\) is marked TargetMode="External" but names the part "\/aasx\/aasx-origin" of the package/),
      expect.stringMatching(/of "\/aasx\/aasx-origin" \(type http:\/\/admin-shell.io\/aasx\/relationships\/aas-spec\) is marked TargetMode="External" but names the part "\/aasx\/xml\/content.xml"/),
    ]);
  });

  it('External aas-suppl and thumbnail relationships naming parts are read too; "Internal" is the default mode', async () => {
    const entries = minimalPackage();
    entries['_rels/.rels'] = relsWithMode([`${NS}/aasx-origin`, '/aasx/aasx-origin', 'Internal'], ['http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail', 'aasx/files/manual.pdf', 'External']);
    entries['aasx/_rels/data.json.rels'] = relsWithMode([`${NS}/aas-suppl`, 'files/manual.pdf', 'External'], [`${NS}/aas-suppl`, 'files/absent.pdf', 'External']);
    const pkg = await readFully(zipOf(entries));
    expect(pkg.files.map((f) => f.path)).toEqual(['/aasx/files/manual.pdf']);
    expect(pkg.thumbnail?.path).toBe('/aasx/files/manual.pdf');
    expect(pkg.warnings).toEqual([
      expect.stringMatching(/"X0" of "\/aasx\/data.json" .* names the part "\/aasx\/files\/manual.pdf" of the package; it was read as an internal relationship/),
      expect.stringMatching(/"X1" of "\/aasx\/data.json" .* is marked TargetMode="External" and its target "files\/absent.pdf" is no part of the package; it was ignored/),
      expect.stringMatching(/"X1" of "\/" .* is marked TargetMode="External" but names the part "\/aasx\/files\/manual.pdf"/),
    ]);
  });

  it('an origin or spec relationship that names nothing in the package is refused, saying so and naming the target', async () => {
    const entries = minimalPackage();
    entries['_rels/.rels'] = relsWithMode([`${NS}/aasx-origin`, 'http://example.com/aasx/aasx-origin', 'External']);
    const outside = (await rejection(zipOf(entries))).message;
    expect(outside).toMatch(/aasx-origin relationship names no part of the package: .*points outside the package \("http:\/\/example.com\/aasx\/aasx-origin"\)/);
    expect(outside).not.toMatch(/has no aasx-origin relationship/);

    entries['_rels/.rels'] = relsWithMode([`${NS}/aasx-origin`, '/aasx/elsewhere', 'External']);
    expect((await rejection(zipOf(entries))).message).toMatch(/marked TargetMode="External" and its target "\/aasx\/elsewhere" is no part of the package/);

    // The origin part may be absent when its relationships part is there.
    entries['_rels/.rels'] = relsWithMode([`${NS}/aasx-origin`, '/aasx/aasx-origin', 'External']);
    delete entries['aasx/aasx-origin'];
    expect((await readFully(zipOf(entries))).specs[0].path).toBe('/aasx/data.json');

    entries['aasx/_rels/aasx-origin.rels'] = relsWithMode([`${NS}/aas-spec`, 'https://example.com/data.json', 'External']);
    expect((await rejection(zipOf(entries))).message).toMatch(/aas-spec relationship .* names no part of the package, so the package has no spec part: .*"https:\/\/example.com\/data.json"/);
  });

  it('an internal relationship with an absolute URI target stays ignored, with a warning naming it', async () => {
    const entries = minimalPackage();
    entries['aasx/_rels/data.json.rels'] = rels([`${NS}/aas-suppl`, 'files/manual.pdf'], [`${NS}/aas-suppl`, 'https://example.com/x.pdf']);
    const pkg = await readFully(zipOf(entries));
    expect(pkg.files.map((f) => f.path)).toEqual(['/aasx/files/manual.pdf']);
    expect(pkg.warnings).toEqual([expect.stringMatching(/points outside the package \("https:\/\/example.com\/x.pdf"\) and was ignored/)]);
  });
});

describe('File values of a package: isExternal and partName', () => {
  it('every spelling that names a part gives its part name', () => {
    for (const value of [
      '/aasx/files/my manual.pdf',
      'aasx/files/my manual.pdf',
      './aasx/files/my manual.pdf',
      '/aasx/files/my%20manual.pdf',
      'file:/aasx/files/my%20manual.pdf',
      'file:///aasx/files/my%20manual.pdf',
      'FILE://LocalHost/aasx/files/my%20manual.pdf',
      'file:///aasx/files/my%20manual.pdf#page=2',
      '\\aasx\\files\\my manual.pdf',
      '/aasx/other/../files/./my manual.pdf',
    ]) {
      expect(isExternal(value), value).toBe(false);
      expect(partName(value), value).toBe('/aasx/files/my manual.pdf');
    }
    expect(partName('/aasx/100%.pdf')).toBe('/aasx/100%.pdf');
  });

  it('links elsewhere are external; a path climbing above the root or a drive letter names no part', () => {
    for (const value of ['https://example.com/x.pdf', 'urn:x:y', 'mailto:a@example.com', 'file://fileserver/share/x.pdf', 'file:/sphere/t1/0c3e7a52-1111-4111-8111-111111111111/x.pdf']) {
      expect(isExternal(value), value).toBe(true);
    }
    expect(partName('../x.pdf')).toBeUndefined();
    expect(partName('/aasx/../../x.pdf')).toBeUndefined();
    expect(isExternal('C:\\docs\\x.pdf')).toBe(false);
    expect(partName('C:\\docs\\x.pdf')).toBe('/C:/docs/x.pdf');
  });
});

describe('readAasxPackage on a minimal package', () => {
  it('resolves relative targets against the source part and content types by Default', async () => {
    const pkg = await readFully(zipOf(minimalPackage()));
    expect(pkg.specs[0]).toMatchObject({ path: '/aasx/data.json', format: 'json', contentType: 'application/json' });
    expect(await pkg.specs[0].text()).toBe(ENVIRONMENT);
    expect(pkg.files.map((f) => [f.path, f.contentType])).toEqual([['/aasx/files/manual.pdf', 'application/pdf']]);
    expect(pkg.part('/aasx/files/manual.pdf')?.size).toBe(19);
    const asImportFile: PackageFile = pkg.files[0];
    expect((await collect(await asImportFile.open())).toString()).toBe('%PDF-1.4 not really');
    expect(pkg.part('/aasx/files/absent.pdf')).toBeUndefined();
  });

  it('reads a ZIP64 package (sizes, offsets and entry count in the ZIP64 fields)', async () => {
    const zip64 = buildZip(Object.entries(minimalPackage()).map(([name, data]) => ({ name, data })), true);
    const pkg = await readFully(zip64);
    expect(await pkg.specs[0].text()).toBe(ENVIRONMENT);
    expect((await pkg.files[0].bytes()).toString()).toBe('%PDF-1.4 not really');
    // The hand-built ZIP64 layout is the standard one: Python's zipfile reads it too (where python3 exists).
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'aasx-')), 'zip64.aasx');
    fs.writeFileSync(file, zip64);
    const python = spawnSync('python3', ['-c', 'import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read("aasx/data.json").decode())', file]);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
    if (!python.error) expect(python.stdout.toString().trim()).toBe(ENVIRONMENT);
  });

  it('decodes percent-escaped targets and entry names', async () => {
    const entries = minimalPackage();
    delete entries['aasx/files/manual.pdf'];
    entries['aasx/files/my%20manual.pdf'] = 'pdf';
    entries['aasx/_rels/data.json.rels'] = rels([`${NS}/aas-suppl`, '/aasx/files/my%20manual.pdf']);
    const pkg = await readFully(zipOf(entries));
    expect(pkg.files.map((f) => f.path)).toEqual(['/aasx/files/my manual.pdf']);
    expect(pkg.part('/aasx/files/my%20manual.pdf')?.path).toBe('/aasx/files/my manual.pdf');
  });

  it('warns about a dangling supplementary relationship and about a file without content type', async () => {
    const entries = minimalPackage();
    entries['aasx/_rels/data.json.rels'] = rels([`${NS}/aas-suppl`, 'files/MANUAL.pdf'], [`${NS}/aas-suppl`, 'files/data.bin']);
    entries['aasx/files/data.bin'] = 'x';
    const pkg = await readFully(zipOf(entries));
    expect(pkg.files.map((f) => [f.path, f.contentType])).toEqual([['/aasx/files/data.bin', 'application/octet-stream']]);
    expect(pkg.warnings.join('\n')).toMatch(/"\/aasx\/files\/MANUAL.pdf" is missing \(the package has "\/aasx\/files\/manual.pdf", which differs in case/);
    expect(pkg.warnings.join('\n')).toMatch(/No content type is declared for "\/aasx\/files\/data.bin"/);
  });

  it('tells V2.0 XML from V3.0 XML', () => {
    expect(isAasV2Xml('\uFEFF<?xml version="1.0"?><aas:aasenv xmlns:aas="http://www.admin-shell.io/aas/2/0"/>')).toBe(true);
    expect(isAasV2Xml('<environment xmlns="https://admin-shell.io/aas/3/0"/>')).toBe(false);
    expect(isAasV2Xml('{"assetAdministrationShells":[]}')).toBe(false);
    expect(isAasV2Xml('<!DOCTYPE x><aasenv xmlns="http://www.admin-shell.io/aas/2/0"/>')).toBe(false);
  });
});

describe('readAasxPackage rejects bad packages with AasxError', () => {
  it('not a zip', async () => {
    expect((await rejection(Buffer.from('{"assetAdministrationShells":[]}'))).message).toMatch(/not a zip/);
    expect((await rejection(Buffer.alloc(0))).message).toMatch(/not a zip/);
  });

  it('no [Content_Types].xml, or one named in another case', async () => {
    const entries = minimalPackage();
    delete entries['[Content_Types].xml'];
    expect((await rejection(zipOf(entries))).message).toMatch(/no "\/\[Content_Types\].xml" part/);
    entries['[content_types].xml'] = CONTENT_TYPES;
    expect((await rejection(zipOf(entries))).message).toMatch(/differs in case/);
  });

  it('no package relationships, no origin relationship', async () => {
    const entries = minimalPackage();
    entries['_rels/.rels'] = rels(['http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail', '/aasx/files/manual.pdf']);
    expect((await rejection(zipOf(entries))).message).toMatch(/no aasx-origin relationship/);
    delete entries['_rels/.rels'];
    expect((await rejection(zipOf(entries))).message).toMatch(/no package relationships part/);
  });

  it('an origin without spec relationship, or without rels at all: an empty package, with a warning (as the BaSyx Python SDK writes and reads one)', async () => {
    const entries = minimalPackage();
    entries['aasx/_rels/aasx-origin.rels'] = rels();
    const empty = await readAasxPackage(zipOf(entries));
    expect(empty.specs).toEqual([]);
    expect(empty.warnings.some((w) => /"\/aasx\/aasx-origin" has no aas-spec relationship.*holds no AAS content/.test(w))).toBe(true);
    delete entries['aasx/_rels/aasx-origin.rels'];
    expect((await readAasxPackage(zipOf(entries))).specs).toEqual([]);
  });

  it('a spec part that is missing, referenced in another case, or neither JSON nor XML', async () => {
    const entries = minimalPackage();
    entries['aasx/_rels/aasx-origin.rels'] = rels([`${NS}/aas-spec`, '/aasx/absent.json']);
    expect((await rejection(zipOf(entries))).message).toMatch(/spec part "\/aasx\/absent.json" referenced by the aasx-origin is missing/);
    entries['aasx/_rels/aasx-origin.rels'] = rels([`${NS}/aas-spec`, '/aasx/Data.json']);
    expect((await rejection(zipOf(entries))).message).toMatch(/"\/aasx\/Data.json".*the package has "\/aasx\/data.json", which differs in case/);
    entries['aasx/_rels/aasx-origin.rels'] = rels([`${NS}/aas-spec`, '/aasx/files/manual.pdf']);
    expect((await rejection(zipOf(entries))).message).toMatch(/"\/aasx\/files\/manual.pdf" is neither JSON nor XML/);
  });

  it.each([
    ['../../x', /".." segment/],
    ['aasx/../../x', /".." segment/],
    ['aasx/%2e%2e/%2e%2e/x', /".." segment/],
    ['/etc/passwd', /absolute path/],
    ['aasx\\files\\evil.txt', /backslash/],
    ['C:/Windows/evil.txt', /drive letter/],
  ])('an entry named %s', async (name, message) => {
    expect((await rejection(zipOf(minimalPackage(), [{ name, data: 'x' }]))).message).toMatch(message);
  });

  it('two entries whose names differ only in case', async () => {
    expect((await rejection(zipOf(minimalPackage(), [{ name: 'aasx/files/Manual.pdf', data: 'x' }]))).message).toMatch(/differ only in case/);
  });

  describe('zip bombs', () => {
    // 1 GiB of zeros as ~1 MiB of deflate: one flushed (non-final) block of 1 MiB zeros, repeated, then an
    // empty final block. Built once; nothing here inflates more than the reader lets it.
    const MiB = 1024 * 1024;
    const block = deflatedMebibyteOfZeros();
    const gigabyteOfZeros = zerosBomb(1024);
    /**
     * "Before inflating" and "stopped while inflating": faster than a quarter of inflating the whole bomb (estimated
     * here, from inflating 64 MiB of it, on the same machine at the same moment), and at least 200 ms.
     */
    const inflatingBound = async () => Math.max(200, (16 * (await medianMs(() => zlib.inflateRawSync(Buffer.concat([...Array(64).fill(block), DEFLATE_END])), 3))) / 4);

    it('is built right: the kernel inflates to zeros', () => {
      const kernel = Buffer.concat([block, block, DEFLATE_END]);
      expect(zlib.inflateRawSync(kernel).equals(Buffer.alloc(2 * MiB))).toBe(true);
      expect(gigabyteOfZeros.length).toBeLessThan(2 * MiB);
    });

    it('declaring its true size: refused by the compression ratio before inflating', async () => {
      const bomb = zipOf(minimalPackage(), [{ name: 'aasx/files/zeros.bin', compressed: gigabyteOfZeros, declaredSize: 1024 * MiB, crc: 0 }]);
      const bound = await inflatingBound();
      const started = Date.now();
      expect((await rejection(bomb)).message).toMatch(/"aasx\/files\/zeros.bin" has a compression ratio of \d+; at most 100/);
      expect(Date.now() - started).toBeLessThan(bound);
    });

    it('declaring its true size: refused by the entry and total size limits', async () => {
      const bomb = zipOf(minimalPackage(), [{ name: 'aasx/files/zeros.bin', compressed: gigabyteOfZeros, declaredSize: 1024 * MiB, crc: 0 }]);
      expect((await rejection(bomb, { maxCompressionRatio: 10_000, maxEntryBytes: 100 * MiB })).message).toMatch(/at most 104857600 are allowed/);
      expect((await rejection(bomb, { maxCompressionRatio: 10_000, maxTotalBytes: 100 * MiB })).message).toMatch(/more than 104857600 bytes uncompressed/);
    });

    it('lying about its size: stopped while inflating, as the spec part and as a supplementary file', async () => {
      const entries = minimalPackage();
      delete entries['aasx/data.json'];
      const asSpec = zipOf(entries, [{ name: 'aasx/data.json', compressed: gigabyteOfZeros, declaredSize: 1000, crc: 0 }]);
      const bound = await inflatingBound();
      const started = Date.now();
      expect((await rejection(asSpec)).message).toMatch(/"aasx\/data.json" inflates to more than its declared 1000 bytes/);

      const supplementary = minimalPackage();
      delete supplementary['aasx/files/manual.pdf'];
      const asFile = zipOf(supplementary, [{ name: 'aasx/files/manual.pdf', compressed: gigabyteOfZeros, declaredSize: 1000, crc: 0 }]);
      const pkg = await readAasxPackage(asFile);
      await expect(pkg.files[0].bytes()).rejects.toThrow(/inflates to more than its declared 1000 bytes/);
      let received = 0;
      await expect(
        (async () => {
          for await (const chunk of pkg.files[0].stream()) received += (chunk as Buffer).length;
        })(),
      ).rejects.toBeInstanceOf(AasxError);
      expect(received).toBeLessThanOrEqual(1000);
      expect(Date.now() - started).toBeLessThan(bound);
    });

    it('overlapping entries (one compressed kernel referenced many times)', async () => {
      const zip = zipOf(minimalPackage());
      // Point the second central directory entry at the first entry's local header.
      const cdOffset = zip.readUInt32LE(zip.length - 6);
      const second = cdOffset + 46 + zip.readUInt16LE(cdOffset + 28);
      zip.writeUInt32LE(0, second + 42);
      expect((await rejection(zip)).message).toMatch(/overlaps/);
    });

    it('a wrong CRC-32 or a short entry', async () => {
      const entries = minimalPackage();
      delete entries['aasx/data.json'];
      expect((await rejection(zipOf(entries, [{ name: 'aasx/data.json', data: ENVIRONMENT, crc: 1 }]))).message).toMatch(/CRC-32/);
      const short = zipOf(entries, [{ name: 'aasx/data.json', data: ENVIRONMENT, declaredSize: ENVIRONMENT.length + 5 }]);
      expect((await rejection(short)).message).toMatch(/inflates to \d+ bytes, not its declared/);
    });
  });

  it('too many entries', async () => {
    const many = Array.from({ length: 10_001 }, (_, i) => ({ name: `aasx/files/f${i}.txt`, data: '', method: 0 as const }));
    const zip = zipOf(minimalPackage(), many);
    // Refused by its central directory, before any entry is read: within 2 s, or the time reading a package of
    // 100 entries takes here, times 100, when the machine is slower than that.
    const hundred = zipOf(minimalPackage(), many.slice(0, 93));
    const bound = Math.max(2000, 100 * (await medianMs(() => readAasxPackage(hundred), 3)));
    const started = Date.now();
    expect((await rejection(zip)).message).toMatch(/has 10008 entries; at most 10000/);
    expect(Date.now() - started).toBeLessThan(bound);
    expect((await rejection(zipOf(minimalPackage()), { maxEntries: 3 })).message).toMatch(/at most 3/);
  });

  it('a rels part with a DOCTYPE declaring an external entity (XXE)', async () => {
    const entries = minimalPackage();
    entries['aasx/_rels/aasx-origin.rels'] =
      '<?xml version="1.0"?><!DOCTYPE Relationships [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>' +
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Type="${NS}/aas-spec" Target="&xxe;" Id="R1"/></Relationships>`;
    expect((await rejection(zipOf(entries))).message).toMatch(/"\/aasx\/_rels\/aasx-origin.rels" has a DOCTYPE declaration/);
  });

  it('a billion-laughs [Content_Types].xml', async () => {
    const laughs = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join('');
    const entries = minimalPackage();
    entries['[Content_Types].xml'] =
      `<?xml version="1.0"?><!DOCTYPE Types [<!ENTITY lol0 "lol">${laughs}]>` +
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="&lol9;"/></Types>';
    const started = Date.now();
    expect((await rejection(zipOf(entries))).message).toMatch(/"\/\[Content_Types\].xml" has a DOCTYPE declaration/);
    // Expanded, the entities would take minutes and gigabytes; refused, milliseconds and what a loaded machine adds.
    expect(Date.now() - started).toBeLessThan(1000 + LOAD_SLACK_MS);
  });

  it('a relationships part that is not XML', async () => {
    const entries = minimalPackage();
    entries['_rels/.rels'] = '<Relationships><Relationship';
    expect((await rejection(zipOf(entries))).message).toMatch(/"\/_rels\/.rels" is not well-formed XML/);
  });

  it('an unsupported compression method or an encrypted entry', async () => {
    const zip = zipOf(minimalPackage());
    const cdOffset = zip.readUInt32LE(zip.length - 6);
    const method = Buffer.from(zip);
    method.writeUInt16LE(12, cdOffset + 10);
    expect((await rejection(method)).message).toMatch(/compression method 12/);
    const encrypted = Buffer.from(zip);
    encrypted.writeUInt16LE(0x801, cdOffset + 8);
    expect((await rejection(encrypted)).message).toMatch(/encrypted/);
  });

  it('reads from a file path the same way', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aasx-'));
    try {
      const file = path.join(dir, 'bad.aasx');
      fs.writeFileSync(file, zipOf(minimalPackage(), [{ name: '../evil', data: 'x' }]));
      expect((await rejection(file)).message).toMatch(/".." segment/);
      fs.writeFileSync(file, zipOf(minimalPackage()));
      const pkg = await readFully(file);
      expect((await pkg.files[0].bytes()).toString()).toBe('%PDF-1.4 not really');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('writeAasxPackage', () => {
  const pdf = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 251));
  const png = fs.readFileSync(path.join(TESTDATA, 'basyx_fileSerializationTest.aasx')).subarray(0, 50_000);

  it('assigns safe, unique, deterministic part names', () => {
    const input = [
      '/aasx/files/manual.pdf',
      '/aasx/files/Manual.PDF',
      '../../etc/passwd',
      'C:\\docs\\Prüfbericht 1.txt',
      '/aasx/data.json',
      '/aasx/_rels/x.rels',
      'report',
      'report',
      '/aasx/files/my%20file.pdf',
    ];
    const expected = [
      '/aasx/files/manual.pdf',
      '/aasx/files/Manual-1.PDF',
      '/aasx/files/etc/passwd',
      '/aasx/files/docs/Pr_fbericht_1.txt',
      '/aasx/data-1.json',
      '/aasx/_rels_/x.rels_',
      '/aasx/files/report',
      '/aasx/files/report-1',
      '/aasx/files/my_file.pdf',
    ];
    expect(assignPartNames(input)).toEqual(expected);
    expect(assignPartNames(input)).toEqual(expected);
  });

  it('round-trips: spec text, files with content types and identical bytes, thumbnail', async () => {
    const opened: string[] = [];
    const file = (filePath: string, contentType: string, bytes: Buffer) => ({
      path: filePath,
      contentType,
      open: async () => {
        opened.push(filePath);
        // Small chunks, as a blob store would deliver them.
        return Readable.from(Array.from({ length: Math.ceil(bytes.length / 4096) }, (_, i) => bytes.subarray(i * 4096, (i + 1) * 4096)));
      },
    });
    const environment = { assetAdministrationShells: [{ id: 'urn:x', idShort: 'ä & <b>' }], submodels: [] };
    const stream = writeAasxPackage({
      spec: {
        format: 'json',
        content: async function* () {
          yield '{"assetAdministrationShells":';
          yield JSON.stringify(environment.assetAdministrationShells);
          yield ',"submodels":[]}';
        },
      },
      files: [
        file('/aasx/files/manual.pdf', 'application/pdf', pdf),
        file('/aasx/files/Manual.pdf', 'application/pdf', pdf.subarray(0, 10)),
        file('logo.png', 'image/png', png),
        file('/aasx/files/empty.txt', 'text/plain; charset=utf-8', Buffer.alloc(0)),
      ],
      thumbnail: file('logo.png', 'image/png', png),
    });
    expect(opened).toEqual([]);
    const bytes = await collect(stream);
    expect(opened).toEqual(['/aasx/files/manual.pdf', '/aasx/files/Manual.pdf', 'logo.png', '/aasx/files/empty.txt']);

    const pkg = await readAasxPackage(bytes);
    expect(pkg.warnings).toEqual([]);
    expect(pkg.specs.map((s) => [s.path, s.format, s.contentType])).toEqual([['/aasx/data.json', 'json', 'application/json']]);
    expect(JSON.parse(await pkg.specs[0].text())).toEqual(environment);
    expect(pkg.files.map((f) => [f.path, f.contentType])).toEqual([
      ['/aasx/files/manual.pdf', 'application/pdf'],
      ['/aasx/files/Manual-1.pdf', 'application/pdf'],
      ['/aasx/files/logo.png', 'image/png'],
      ['/aasx/files/empty.txt', 'text/plain; charset=utf-8'],
    ]);
    expect((await pkg.files[0].bytes()).equals(pdf)).toBe(true);
    expect((await pkg.files[1].bytes()).equals(pdf.subarray(0, 10))).toBe(true);
    expect((await pkg.files[2].bytes()).equals(png)).toBe(true);
    expect((await pkg.files[3].bytes()).length).toBe(0);
    expect(pkg.thumbnail?.path).toBe('/aasx/files/logo.png');

    // Another OPC reader agrees on the layout.
    const zip = await JSZip.loadAsync(bytes);
    expect(Object.keys(zip.files).sort()).toEqual([
      '[Content_Types].xml',
      '_rels/.rels',
      'aasx/_rels/aasx-origin.rels',
      'aasx/_rels/data.json.rels',
      'aasx/aasx-origin',
      'aasx/data.json',
      'aasx/files/Manual-1.pdf',
      'aasx/files/empty.txt',
      'aasx/files/logo.png',
      'aasx/files/manual.pdf',
    ]);
    expect(await zip.file('_rels/.rels')!.async('string')).toContain('Type="http://admin-shell.io/aasx/relationships/aasx-origin" Target="/aasx/aasx-origin"');
  });

  it.each(REAL_PACKAGES)('%s: read, written again from the reader\'s streams, read back: same spec, same files', async (name) => {
    const original = await readAasxPackage(path.join(TESTDATA, name));
    const text = await original.specs[0].text();
    const asInput = (part: { path: string; contentType: string; stream(): Readable }) => ({
      path: part.path,
      contentType: part.contentType,
      open: async () => part.stream(),
    });
    const written = await collect(
      writeAasxPackage({
        spec: { format: original.specs[0].format, content: text },
        files: original.files.map(asInput),
        thumbnail: original.thumbnail && asInput(original.thumbnail),
      }),
    );
    const copy = await readAasxPackage(written);
    expect(await copy.specs[0].text()).toBe(text);
    expect(copy.files.map((f) => [f.path, f.contentType])).toEqual(original.files.map((f) => [f.path, f.contentType]));
    for (const [i, file] of copy.files.entries()) expect((await file.bytes()).equals(await original.files[i].bytes())).toBe(true);
    expect(copy.thumbnail?.path).toBe(original.thumbnail?.path);
    expect(copy.warnings).toEqual([]);
  });

  it('writes an XML spec without files, and no thumbnail relationship when none is given', async () => {
    const xml = '<environment xmlns="https://admin-shell.io/aas/3/0"/>';
    const pkg = await readAasxPackage(await collect(writeAasxPackage({ spec: { format: 'xml', content: xml } })));
    expect(pkg.specs[0]).toMatchObject({ path: '/aasx/data.xml', format: 'xml', contentType: 'application/xml' });
    expect(await pkg.specs[0].text()).toBe(xml);
    expect(pkg.files).toEqual([]);
    expect(pkg.thumbnail).toBeUndefined();
  });

  it('fails the stream when a file cannot be opened or read', async () => {
    const failing = writeAasxPackage({
      spec: { format: 'json', content: ENVIRONMENT },
      files: [{ path: '/aasx/files/a.bin', contentType: 'application/octet-stream', open: async () => Promise.reject(new Error('blob gone')) }],
    });
    await expect(collect(failing)).rejects.toThrow('blob gone');
    const broken = writeAasxPackage({
      spec: { format: 'json', content: ENVIRONMENT },
      files: [
        {
          path: '/aasx/files/a.bin',
          contentType: 'application/octet-stream',
          open: async () =>
            Readable.from(
              (async function* () {
                yield Buffer.from('partial');
                throw new Error('connection reset');
              })(),
            ),
        },
      ],
    });
    await expect(collect(broken)).rejects.toThrow('connection reset');
  });

  it('keeps memory flat: a 128 MiB file streams through', async () => {
    const size = 128 * 1024 * 1024;
    const chunk = Buffer.alloc(1024 * 1024, 7);
    global.gc?.();
    const before = process.memoryUsage();
    let peak = 0;
    let written = 0;
    const stream = writeAasxPackage({
      spec: { format: 'json', content: ENVIRONMENT },
      files: [
        {
          path: '/aasx/files/big.png',
          contentType: 'image/png',
          open: async () =>
            Readable.from(
              (function* () {
                for (let sent = 0; sent < size; sent += chunk.length) yield chunk;
              })(),
            ),
        },
      ],
    });
    for await (const piece of stream) {
      written += (piece as Buffer).length;
      const now = process.memoryUsage();
      peak = Math.max(peak, now.heapUsed + now.arrayBuffers - before.heapUsed - before.arrayBuffers);
    }
    expect(written).toBeGreaterThan(size);
    expect(peak).toBeLessThan(64 * 1024 * 1024);
  });
});
