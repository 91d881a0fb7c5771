// CIDv0: base58btc multihash of a sha2-256 digest, always 'Qm' + 44 characters.
const cidV0 = /^Qm[1-9A-HJ-NP-Za-km-z]{44}$/;
// CIDv1 in the multibase base32 lower-case form ('b'), e.g. bafy... (dag-pb) or bafk... (raw): at least 50 characters.
const cidV1 = /^b[a-z2-7]{50,}$/;

/** True for an IPFS content id in the forms token URIs use (v0 `Qm...`, v1 base32 `bafy...`). */
export function isCid(text: string): boolean {
  return cidV0.test(text) || cidV1.test(text);
}

/**
 * The `CID/path?query` part of an IPFS reference, or undefined when `ref` is not one: `ipfs://CID/...`,
 * `ipfs://ipfs/CID/...`, a bare `CID/...` or `/ipfs/CID/...`, an `http(s)://any-host/ipfs/CID/...` path,
 * or a subdomain gateway `https://CID.ipfs.host/...`.
 */
export function ipfsPath(ref: string): string | undefined {
  const trimmed = ref.trim();
  if (/^ipfs:/i.test(trimmed)) {
    const rest = trimmed.replace(/^ipfs:\/*/i, '').replace(/^ipfs\//i, '');
    return rest === '' ? undefined : rest;
  }
  if (/^https?:\/\//i.test(trimmed)) return ipfsPathOfHttpUrl(trimmed);
  const bare = trimmed.replace(/^\/?ipfs\//, '');
  const first = bare.split(/[/?#]/)[0] as string;
  return isCid(first) ? bare : undefined;
}

function ipfsPathOfHttpUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const suffix = `${url.search}${url.hash}`;
  const match = /^\/ipfs\/([^/]+)(.*)$/.exec(url.pathname);
  if (match && isCid(match[1] as string)) return `${match[1]}${match[2]}${suffix}`;
  const [label, kind] = url.hostname.split('.');
  if (kind === 'ipfs' && label && isCid(label)) return `${label}${url.pathname === '/' ? '' : url.pathname}${suffix}`;
  return undefined;
}
