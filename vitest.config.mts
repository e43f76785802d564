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
    pool: 'forks',
  },
});
