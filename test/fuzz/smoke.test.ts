import { describe } from 'vitest';
import { defineFuzzSuite } from './support/fuzz-suite.ts';

// The fuzzer itself, kept working in the normal suite with a few cases; `npm run test:fuzz` runs 10,000.
describe('fuzz smoke: 200 generated requests', () => {
  defineFuzzSuite(200, 120_000);
});
