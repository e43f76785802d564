import { QueryFailedError } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { isLastingRefusal } from '../../src/db/unavailable';

const refused = (code: string, message = 'refused') => new QueryFailedError('SELECT 1', [], Object.assign(new Error(message), { code }));

describe('a lasting refusal of the database', () => {
  it('is an error the database answered that running the statement again will not change', () => {
    // What Citus answers a statement over several workers with `citus.multi_task_query_log_level = error`.
    expect(isLastingRefusal(refused('XX000', 'multi-task query about to be executed'))).toBe(true);
    expect(isLastingRefusal(refused('25006', 'cannot execute UPDATE in a read-only transaction'))).toBe(true);
    expect(isLastingRefusal(refused('42501', 'permission denied for table outbox'))).toBe(true);
  });

  it('is not the database being away, nor a conflict or a wait of the moment, nor an error of no database', () => {
    for (const code of ['40001', '40P01', '57014', '55P03', '57P01', '08006']) expect(isLastingRefusal(refused(code)), code).toBe(false);
    expect(isLastingRefusal(new Error('Connection terminated unexpectedly'))).toBe(false);
    expect(isLastingRefusal(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(false);
    expect(isLastingRefusal(new Error('broker unreachable'))).toBe(false);
  });
});
