import { describe, expect, it } from 'vitest';
import { parseMetadata } from '../../src/nfts/metadata/parse-metadata.ts';

describe('parseMetadata', () => {
  it('reads name, description, image and attributes as string traits', () => {
    const parsed = parseMetadata({
      name: 'Token #1',
      description: 'The first',
      image: 'ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG',
      attributes: [
        { trait_type: 'Color', value: 'red' },
        { trait_type: 'Level', value: 5, display_type: 'number' },
        { trait_type: 'Shiny', value: true },
        { value: 'no type' },
        { trait_type: 7, value: 1.5 },
      ],
    });
    expect(parsed).toEqual({
      name: 'Token #1',
      description: 'The first',
      image: 'ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG',
      traits: [
        { trait_type: 'Color', value: 'red' },
        { trait_type: 'Level', value: '5' },
        { trait_type: 'Shiny', value: 'true' },
        { trait_type: '', value: 'no type' },
        { trait_type: '7', value: '1.5' },
      ],
    });
  });

  it('accepts `traits`, object-shaped traits, image_url and image_data', () => {
    expect(parseMetadata({ traits: [{ trait_type: 'a', value: 'b' }] }).traits).toEqual([{ trait_type: 'a', value: 'b' }]);
    expect(parseMetadata({ attributes: { Eyes: 'blue', Age: 3 } }).traits).toEqual([
      { trait_type: 'Eyes', value: 'blue' },
      { trait_type: 'Age', value: '3' },
    ]);
    expect(parseMetadata({ image_url: 'https://img.example/1.png' }).image).toBe('https://img.example/1.png');
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"/>';
    expect(parseMetadata({ image_data: svg }).image).toBe(`data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`);
    expect(parseMetadata({ image: 'https://a.example/x.png', image_data: svg }).image).toBe('https://a.example/x.png');
  });

  it('tolerates junk: wrong types are dropped, never thrown on', () => {
    const parsed = parseMetadata({
      name: { en: 'x' },
      description: '   ',
      image: 42,
      attributes: [
        null,
        'str',
        3,
        { trait_type: 'x' },
        { trait_type: 'y', value: { nested: 1 } },
        { trait_type: 'z', value: null },
      ],
    });
    expect(parsed).toEqual({ name: null, description: null, image: '42', traits: [] });
    expect(parseMetadata({ attributes: 'red' }).traits).toEqual([]);
    expect(parseMetadata({}).traits).toEqual([]);
  });

  it('bounds long texts and trait lists', () => {
    const parsed = parseMetadata({
      description: 'x'.repeat(50_000),
      attributes: Array.from({ length: 2_000 }, (_, i) => ({ trait_type: 't', value: i })),
    });
    expect(parsed.description).toHaveLength(10_000);
    expect(parsed.traits).toHaveLength(500);
  });
});
