import { describe, expect, it } from 'vitest';
import { createPassMemory, passKeyOf } from '../../src/bundler/validation-pass-memory.ts';

describe('the memory of which pass settled a validation', () => {
  it('recalls the last pass per key, forgets on undefined, and keeps the keys written last', () => {
    const memory = createPassMemory(2);
    memory.remember('a', 'opcodes');
    memory.remember('b', 'steps');
    expect([memory.recall('a'), memory.recall('b')]).toEqual(['opcodes', 'steps']);
    memory.remember('a', 'steps'); // written again: now the newest
    memory.remember('c', 'opcodes'); // over the limit: b, written least recently, goes
    expect([memory.recall('a'), memory.recall('b'), memory.recall('c')]).toEqual(['steps', undefined, 'opcodes']);
    memory.remember('a', undefined);
    expect(memory.recall('a')).toBeUndefined();
  });

  it('keys by EntryPoint and address, whatever their case', () => {
    expect(passKeyOf('0xAbC', '0xDeF')).toBe(passKeyOf('0xabc', '0xdef'));
    expect(passKeyOf('0xabc', '0xdef')).not.toBe(passKeyOf('0xabd', '0xdef'));
  });
});
