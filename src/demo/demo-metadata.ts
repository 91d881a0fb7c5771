/** Self-contained metadata for the demo collections: data: URIs, so the demo needs no web server or IPFS. */

export interface DemoApe {
  id: bigint;
  background: string;
  fur: string;
  eyes: string;
  level: number;
}

export const demoApes: readonly DemoApe[] = [
  { id: 1n, background: 'Teal', fur: 'Brown', eyes: 'Sleepy', level: 3 },
  { id: 2n, background: 'Sunset', fur: 'Golden', eyes: 'Wide', level: 7 },
  { id: 3n, background: 'Navy', fur: 'Gray', eyes: 'Laser', level: 12 },
  { id: 4n, background: 'Mint', fur: 'Black', eyes: 'Sleepy', level: 1 },
  { id: 5n, background: 'Coral', fur: 'White', eyes: 'Wide', level: 5 },
  { id: 6n, background: 'Gold', fur: 'Red', eyes: 'Laser', level: 42 },
];

const colors: Record<string, string> = {
  Teal: '#2a9d8f',
  Sunset: '#f4a261',
  Navy: '#264653',
  Mint: '#a8dadc',
  Coral: '#e76f51',
  Gold: '#e9c46a',
  Brown: '#8d5524',
  Golden: '#c68642',
  Gray: '#7d7d7d',
  Black: '#222222',
  White: '#f1f1f1',
  Red: '#b23a48',
};

export function jsonDataUri(value: unknown): string {
  return `data:application/json;base64,${Buffer.from(JSON.stringify(value)).toString('base64')}`;
}

function svgDataUri(svg: string): string {
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

function apeImage(ape: DemoApe): string {
  const eye = ape.eyes === 'Laser' ? '#ff0000' : '#ffffff';
  const eyeHeight = ape.eyes === 'Sleepy' ? 3 : 8;
  return svgDataUri(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" fill="${colors[ape.background]}"/>` +
      `<circle cx="50" cy="55" r="32" fill="${colors[ape.fur]}"/><ellipse cx="50" cy="68" rx="18" ry="12" fill="#d9a679"/>` +
      `<ellipse cx="38" cy="48" rx="6" ry="${eyeHeight}" fill="${eye}"/><ellipse cx="62" cy="48" rx="6" ry="${eyeHeight}" fill="${eye}"/>` +
      `<text x="50" y="96" font-size="9" text-anchor="middle" fill="#000">#${ape.id}</text></svg>`,
  );
}

/** ERC-721 metadata JSON (OpenSea shape) as a base64 data URI. */
export function apeTokenUri(ape: DemoApe): string {
  return jsonDataUri({
    name: `Blockyard Demo Ape #${ape.id}`,
    description: 'A sample NFT minted by `blockyard start --demo` on the local devnet.',
    image: apeImage(ape),
    attributes: [
      { trait_type: 'Background', value: ape.background },
      { trait_type: 'Fur', value: ape.fur },
      { trait_type: 'Eyes', value: ape.eyes },
      { trait_type: 'Level', value: ape.level, display_type: 'number' },
    ],
  });
}

const logo = svgDataUri(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" rx="20" fill="#264653"/>' +
    '<text x="50" y="62" font-size="36" text-anchor="middle" fill="#e9c46a">BY</text></svg>',
);

export const apesContractUri = jsonDataUri({
  name: 'Blockyard Demo Apes',
  description: 'Six sample apes for trying the NFT API on the local devnet.',
  image: logo,
});

export const itemsContractUri = jsonDataUri({
  name: 'Blockyard Demo Items',
  description: 'Sample ERC-1155 items (coins, potions, a sword) for trying the NFT API on the local devnet.',
  image: logo,
});

/**
 * The ERC-1155 URI template: clients replace `{id}` with the id as 64 lower-case hex digits. Percent-encoded
 * rather than base64, so the `{id}` stays visible and the substitution works on the text.
 */
export const itemsUriTemplate = `data:application/json,${encodeURIComponent(
  JSON.stringify({
    name: 'Blockyard Demo Item {id}',
    description: 'A sample ERC-1155 item minted by `blockyard start --demo`.',
    image: svgDataUri(
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" fill="#a8dadc"/>' +
        '<polygon points="50,15 85,50 50,85 15,50" fill="#e76f51"/></svg>',
    ),
    attributes: [{ trait_type: 'Collection', value: 'Blockyard Demo Items' }],
  }),
).replaceAll('%7Bid%7D', '{id}')}`;
