import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

// OWASP's scrypt floor (N=2^17, r=8, p=1) costs 128 MiB per hash; N=2^15 keeps a sign-in near 50 ms
// and 32 MiB on a small server, still far beyond what makes offline guessing cheap.
const params = { N: 2 ** 15, r: 8, p: 1 } as const;
const keyLength = 32;
const maxmem = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, keyLength, { ...options, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/**
 * `scrypt$N$r$p$<salt b64>$<hash b64>`, with a new 16-byte salt per password.
 * @example await hashPassword('correct horse battery staple')
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** Whether the password matches the stored hash (compared in constant time); false for a malformed or absent hash. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = stored?.split('$');
  if (parts?.length !== 6 || parts[0] !== 'scrypt') {
    // Spend the same time as a real check, so an unknown email cannot be told from a wrong password.
    await derive(password, randomBytes(16), params);
    return false;
  }
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
