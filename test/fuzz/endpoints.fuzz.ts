import { describe } from 'vitest';
import { defineFuzzSuite } from './support/fuzz-suite.ts';

describe('fuzz: every operation of the OpenAPI document, and JSON-RPC', () => {
  defineFuzzSuite(10_000, 15 * 60_000);
});
