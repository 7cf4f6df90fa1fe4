import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'tests/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for what a loaded machine does late (a redraw after a round trip), not 1 s.
    expect: { poll: { timeout: 15_000 } },
    // Multi-process suites spawn many node processes; two workers suit a 2-core machine.
    pool: 'forks',
    maxWorkers: 2,
  },
});
