import { describe, expect, it } from 'vitest';
import { FAILURE_WINDOW_MS, FailureLimiter } from '../../src/auth/identity/failure-limiter';

describe('FailureLimiter', () => {
  it('refuses a key after `limit` failures in a minute, until the minute is over', () => {
    let now = 1_000_000;
    const limiter = new FailureLimiter(3, () => now);
    for (let i = 0; i < 3; i++) {
      expect(limiter.retryAfter('client:a')).toBe(0);
      limiter.fail('client:a');
    }
    expect(limiter.retryAfter('client:a')).toBe(60);
    expect(limiter.retryAfter('client:b')).toBe(0);
    now += 45_500;
    expect(limiter.retryAfter('client:a')).toBe(15);
    now += FAILURE_WINDOW_MS;
    expect(limiter.retryAfter('client:a')).toBe(0);
  });

  it('forgets a key on success', () => {
    const limiter = new FailureLimiter(2);
    limiter.fail('x');
    limiter.reset('x');
    limiter.fail('x');
    expect(limiter.retryAfter('x')).toBe(0);
    limiter.fail('x');
    expect(limiter.retryAfter('x')).toBeGreaterThan(0);
  });

  it('stays bounded under a flood of distinct keys', () => {
    const limiter = new FailureLimiter(1);
    for (let i = 0; i < 120_000; i++) limiter.fail(`address:${i}`);
    expect((limiter as unknown as { windows: Map<string, unknown> }).windows.size).toBeLessThanOrEqual(100_000);
    // The newest are remembered.
    expect(limiter.retryAfter('address:119999')).toBeGreaterThan(0);
  });
});
