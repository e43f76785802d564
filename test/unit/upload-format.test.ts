import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEnvironmentFile, uploadFormat } from '../../src/aas/import/upload-format';

const ZIP = Buffer.from('PK\x03\x04rest of a zip', 'latin1');
const JSON_TEXT = Buffer.from('{"submodels": []}');
const XML_TEXT = Buffer.from('<?xml version="1.0"?><environment/>');

describe('uploadFormat: the content type, else the name, else the first bytes (as BaSyx tells them)', () => {
  const cases: [string, string, Buffer, string | undefined][] = [
    ['application/asset-administration-shell-package', 'x.json', JSON_TEXT, 'aasx'],
    ['application/asset-administration-shell-package+xml', 'x', ZIP, 'aasx'],
    ['application/json', 'x.aasx', ZIP, 'json'],
    ['application/json; charset=utf-8', 'x', JSON_TEXT, 'json'],
    ['application/xml', 'x.json', JSON_TEXT, 'xml'],
    ['text/xml', 'x', XML_TEXT, 'xml'],
    ['application/octet-stream', 'x.AASX', JSON_TEXT, 'aasx'],
    ['text/plain', 'env.json', XML_TEXT, 'json'],
    ['application/octet-stream', 'env.xml', ZIP, 'xml'],
    ['application/octet-stream', 'upload', ZIP, 'aasx'],
    ['application/octet-stream', 'upload.bin', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(' \r\n\t'), JSON_TEXT]), 'json'],
    ['text/plain', 'upload', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<env/>', 'utf16le')]), 'xml'],
    ['application/octet-stream', 'upload', Buffer.from('hello'), undefined],
    ['application/octet-stream', 'upload', Buffer.from('PK'), undefined],
  ];
  for (const [type, name, head, expected] of cases) {
    it(`${type}, ${name}, ${JSON.stringify(head.subarray(0, 8).toString('latin1'))}: ${expected}`, () => {
      expect(uploadFormat({ contentType: type, fileName: name }, head)).toBe(expected);
    });
  }
});

describe('readEnvironmentFile', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'upload-format-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a document larger than the in-memory limit is 413 (PAYLOAD_TOO_LARGE), one at the limit is read', async () => {
    const file = path.join(dir, 'env.json');
    fs.writeFileSync(file, JSON_TEXT);
    await expect(readEnvironmentFile(file, 'json', 'env.json', JSON_TEXT.length - 1)).rejects.toMatchObject({
      extensions: { code: 'PAYLOAD_TOO_LARGE' },
      message: expect.stringMatching(/env.json is 17 bytes; a JSON or XML environment may be at most 16 bytes/),
    });
    expect(await readEnvironmentFile(file, 'json', 'env.json', JSON_TEXT.length)).toEqual({ environment: { submodels: [] }, warnings: [] });
  });
});
