import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { MAX_MESSAGES, MAX_MESSAGE_LENGTH, resultOf } from '../../src/common/result';
import { AppError, ERROR_STATUS, badRequest, statusOfCode } from '../../src/graphql/errors';

describe('Result mapping', () => {
  it('builds an AAS Result with one message per text', () => {
    const result = resultOf(400, ['$.id: missing', '$.idShort: bad'], 'req-1');
    expect(result.messages).toHaveLength(2);
    expect(result.messages[0]).toMatchObject({ code: '400', messageType: 'Error', text: '$.id: missing', correlationId: 'req-1' });
    expect(new Date(result.messages[0].timestamp).toISOString()).toBe(result.messages[0].timestamp);
  });

  it('marks server failures as Exception', () => {
    expect(resultOf(500, ['boom']).messages[0].messageType).toBe('Exception');
  });

  it('maps every GraphQL error code to its HTTP status, and unknown codes to 500', () => {
    expect(statusOfCode('BAD_REQUEST')).toBe(400);
    expect(statusOfCode('UNAUTHENTICATED')).toBe(401);
    expect(statusOfCode('FORBIDDEN')).toBe(403);
    expect(statusOfCode('NOT_FOUND')).toBe(404);
    expect(statusOfCode('CONFLICT')).toBe(409);
    expect(statusOfCode('PRECONDITION_FAILED')).toBe(412);
    expect(statusOfCode('PAYLOAD_TOO_LARGE')).toBe(413);
    expect(statusOfCode('UNSUPPORTED_MEDIA_TYPE')).toBe(415);
    expect(statusOfCode('SOMETHING_ELSE')).toBe(500);
    expect(statusOfCode(undefined)).toBe(500);
    expect(statusOfCode('toString')).toBe(500);
    for (const status of Object.values(ERROR_STATUS)) expect(status).toBeGreaterThanOrEqual(400);
  });

  it('carries the individual messages in the error extensions', () => {
    const err = badRequest('Invalid shell', ['$.id: a', '$.idShort: b']);
    expect(err).toBeInstanceOf(GraphQLError);
    expect(err).toBeInstanceOf(AppError);
    expect(err.extensions).toEqual({ code: 'BAD_REQUEST', messages: ['$.id: a', '$.idShort: b'] });
  });
});

describe('echoed values', () => {
  it('are cut to a few hundred characters, in Results and in GraphQL errors alike', () => {
    const id = 'x'.repeat(20 * 1024 * 1024);
    const result = resultOf(404, [`Shell '${id}' not found.`]);
    expect(result.messages[0].text.length).toBeLessThan(MAX_MESSAGE_LENGTH + 50);
    expect(result.messages[0].text).toMatch(/^Shell 'x+… \(\d+ more characters\)$/);
    const err = badRequest(`Bad '${id}'`, [`one '${id}'`, ...Array.from({ length: 200 }, (_, i) => `m${i}`)]);
    expect(err.message.length).toBeLessThan(MAX_MESSAGE_LENGTH + 50);
    const messages = err.extensions.messages as string[];
    expect(messages).toHaveLength(MAX_MESSAGES);
    expect(messages[0].length).toBeLessThan(MAX_MESSAGE_LENGTH + 50);
    expect(resultOf(400, Array.from({ length: 500 }, () => 'm')).messages).toHaveLength(MAX_MESSAGES);
  });
});
