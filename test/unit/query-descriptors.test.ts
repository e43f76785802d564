import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/graphql/errors';
import type { Field } from '../../src/aas/query/ast';
import { fieldChunks } from '../../src/aas/query/fields';
import { parseField, parseQuery } from '../../src/aas/query/parse';
import { toSql } from '../../src/aas/query/sql';

/** The descriptor roots of the query language (`$aasdesc`, `$smdesc`) in the parser and the SQL translation. */

const eq = (field: string, value: string) => ({ $eq: [{ $field: field }, { $strVal: value }] });
const paths = (text: string) => fieldChunks(parseField(text, '/f') as Field).map((c) => c.path);
const SCALAR = ' ? (@.type() == "string" || @.type() == "number" || @.type() == "boolean")';

function failure(run: () => unknown): AppError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('expected a failure');
}

describe('descriptor fields', () => {
  it('read the JSON names: the grammar\'s "protocolinformation" is "protocolInformation"', () => {
    expect(paths('$aasdesc#endpoints[].protocolinformation.href')).toEqual(['lax $.endpoints[*]', `lax $.protocolInformation.href${SCALAR}`]);
    expect(paths('$smdesc#endpoints[2].protocolinformation.href')).toEqual([`lax $.endpoints[2].protocolInformation.href${SCALAR}`]);
    expect(paths('$aasdesc#submodelDescriptors[].endpoints[].protocolinformation.href')).toEqual([
      'lax $.submodelDescriptors[*]',
      'lax $.endpoints[*]',
      `lax $.protocolInformation.href${SCALAR}`,
    ]);
    expect(paths('$aasdesc#endpoints[0].interface')).toEqual([`lax $.endpoints[0].interface${SCALAR}`]);
  });

  it('a semanticId stands for its first key, in submodel descriptors and under shell descriptors', () => {
    expect(paths('$smdesc#semanticId')).toEqual([`lax $.semanticId.keys[0].value${SCALAR}`]);
    expect(paths('$aasdesc#submodelDescriptors[].semanticId')).toEqual(['lax $.submodelDescriptors[*]', `lax $.semanticId.keys[0].value${SCALAR}`]);
    expect(paths('$aasdesc#specificAssetIds[].externalSubjectId')).toEqual(['lax $.specificAssetIds[*]', `lax $.externalSubjectId.keys[0].value${SCALAR}`]);
  });

  it('parse only the attributes IDTA-01002-3 lists for descriptors', () => {
    for (const field of ['$aasdesc#idShort', '$aasdesc#assetType', '$aasdesc#specificAssetIds[0].externalSubjectId.keys[].type', '$smdesc#id', '$smdesc#semanticId.type']) {
      expect(() => parseQuery({ $condition: eq(field, 'x') }), field).not.toThrow();
    }
    for (const field of ['$aasdesc#displayName', '$aasdesc#assetInformation.assetKind', '$smdesc#submodelDescriptors[].id', '$smdesc#endpoints[].protocolInformation.href']) {
      expect(failure(() => parseQuery({ $condition: eq(field, 'x') })).message, field).toMatch(/Invalid query/);
    }
  });

  it('a query addresses one kind: $aasdesc and $smdesc do not mix', () => {
    const e = failure(() => parseQuery({ $condition: { $and: [eq('$aasdesc#id', 'a'), eq('$smdesc#id', 'b')] } }));
    expect(e.message).toMatch(/one kind of object.*\$aasdesc, \$smdesc/);
  });

  it('$match over two lists of a shell descriptor is an error', () => {
    const e = failure(() => parseQuery({ $condition: { $match: [eq('$aasdesc#specificAssetIds[].name', 'a'), eq('$aasdesc#submodelDescriptors[].id', 'b')] } }));
    expect(e.message).toMatch(/same list/);
  });
});

describe('toSql over descriptors', () => {
  it('targets the shell descriptor table, the document expression given', () => {
    const sql = toSql(parseQuery({ $condition: eq('$smdesc#idShort', 'Nameplate') }), 'submodelDescriptors', { doc: 'e.sm', firstParam: 3 });
    expect(sql.table).toBe('shell_descriptors');
    expect(sql.where).toContain('jsonb_path_query(e.sm, $3::jsonpath, $4::jsonb)');
    expect(sql.params).toEqual([`lax $.idShort${SCALAR}`, '{}', 'Nameplate']);
    expect(toSql(parseQuery({ $condition: { $boolean: true } }), 'shellDescriptors').table).toBe('shell_descriptors');
  });

  it('$match binds one element of submodelDescriptors', () => {
    const query = parseQuery({ $condition: { $match: [eq('$aasdesc#submodelDescriptors[].idShort', 'A'), eq('$aasdesc#submodelDescriptors[].id', 'b')] } });
    const { where } = toSql(query, 'shellDescriptors', { doc: 'd.doc' });
    expect(where.match(/jsonb_path_query\(d\.doc/g)).toHaveLength(1);
    expect(where).toMatch(/^EXISTS \(SELECT 1 FROM jsonb_path_query\(d\.doc, \$1::jsonpath, \$2::jsonb\) AS q0\(e\) WHERE /);
  });

  it('refuses a query of the other descriptor kind with 400', () => {
    const e = failure(() => toSql(parseQuery({ $condition: eq('$aasdesc#id', 'x') }), 'submodelDescriptors'));
    expect(e.extensions.code).toBe('BAD_REQUEST');
    expect(e.message).toMatch(/address shellDescriptors, but the query is over submodelDescriptors/);
  });
});
