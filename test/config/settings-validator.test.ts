import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateSettingsValidator } from '../../scripts/settings-validator-source.ts';

describe('the generated settings validator', () => {
  it('is what the generator writes from the current schema (run `npm run generate` after changing src/config/schema.ts)', () => {
    const file = readFileSync(new URL('../../src/config/settings-validator.generated.js', import.meta.url), 'utf8');
    expect(file).toBe(generateSettingsValidator());
  });
});
