export interface Trait {
  readonly trait_type: string;
  readonly value: string;
}

export interface ParsedMetadata {
  readonly name: string | null;
  readonly description: string | null;
  /** As the document gives it (may be ipfs://, ar://, data:). */
  readonly image: string | null;
  readonly traits: readonly Trait[];
}

/** Longest name, description or trait kept: metadata is shown, not archived (images are kept whole). */
const maxFieldChars = 10_000;
const maxTraits = 500;

function text(value: unknown, maxChars = maxFieldChars): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value.slice(0, maxChars);
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return null;
}

function traitValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value.slice(0, maxFieldChars);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return undefined;
}

function parseTraits(raw: unknown): Trait[] {
  if (Array.isArray(raw)) {
    const traits: Trait[] = [];
    for (const entry of raw) {
      if (traits.length >= maxTraits) break;
      if (typeof entry !== 'object' || entry === null) continue;
      const record = entry as Record<string, unknown>;
      const value = traitValue(record.value);
      if (value === undefined) continue;
      const type = traitValue(record.trait_type ?? record.type ?? record.key) ?? '';
      traits.push({ trait_type: type, value });
    }
    return traits;
  }
  // Some collections give traits as an object: {"Color": "red", "Level": 3}.
  if (typeof raw === 'object' && raw !== null) {
    return Object.entries(raw)
      .slice(0, maxTraits)
      .flatMap(([type, value]) => {
        const text = traitValue(value);
        return text === undefined ? [] : [{ trait_type: type, value: text }];
      });
  }
  return [];
}

function svgDataUri(svg: string): string {
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}

/**
 * Reads the fields we show from an ERC-721/1155 metadata document, tolerating junk: wrong types are
 * dropped, trait values become strings, a missing trait_type is "". `image_data` (inline SVG) becomes
 * a data: URI when there is no `image`.
 */
export function parseMetadata(document: Record<string, unknown>): ParsedMetadata {
  let image = text(document.image, Number.POSITIVE_INFINITY) ?? text(document.image_url, Number.POSITIVE_INFINITY);
  const imageData = text(document.image_data, Number.POSITIVE_INFINITY);
  if (image === null && imageData !== null) image = imageData.startsWith('data:') ? imageData : svgDataUri(imageData);
  return {
    name: text(document.name) ?? text(document.title),
    description: text(document.description),
    image,
    traits: parseTraits(document.attributes ?? document.traits),
  };
}
