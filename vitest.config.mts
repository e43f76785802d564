import os from 'node:os';
import path from 'node:path';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: {
    // One graphql realm: type-graphql and our code must share the same module instance.
    alias: { graphql: path.resolve(import.meta.dirname, 'node_modules/graphql/index.js') },
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Generous for a 2-core machine at load 10, where a test takes several times its idle duration: a timeout here
    // reports a test that hangs, never one that is merely slow (test/support/timing.ts).
    testTimeout: 180_000,
    hookTimeout: 300_000,
    // expect.poll waits for what a page or a background job shows: 1 s (vitest's default) is an idle machine's bound,
    // and a browser test beside a full suite took longer. It ends as soon as the expectation holds.
    expect: { poll: { timeout: 20_000 } },
    pool: 'forks',
    // vitest's default is one worker less than the cores: on 2 cores, one test file at a time. Most of a test file's
    // time is waiting (on PostgreSQL, on servers it started, on deliveries), so two files at a time on 2 cores
    // finish sooner; test files isolate their data by tenant and may run side by side.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
  },
});
