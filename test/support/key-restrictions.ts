import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import type { KeyRestrictions } from '../../src/keys/key-settings.ts';
import type { TestService } from './service.ts';

/** Sets a key's restrictions through the admin API (`PATCH /admin/keys/{id}`), as an operator does. */
export async function restrictKey(t: Pick<TestService, 'admin'>, keyId: string, restrictions: KeyRestrictions): Promise<void> {
  const { status, body } = await t.admin('PATCH', `/admin/keys/${keyId}`, { restrictions });
  if (status !== 200) throw new Error(`PATCH /admin/keys/${keyId} answered ${status}: ${JSON.stringify(body)}`);
}

export interface SigningKey {
  readonly id: string;
  readonly alg: 'RS256' | 'ES256';
  /** The SPKI PEM a key's `restrictions.jwt.public_keys` lists. */
  readonly pem: string;
  /** A token signed with this key: `aud` blockyard, `sub` test and a 5-minute `exp` unless told; `jti` and `key` when given. */
  sign(claims?: {
    aud?: string;
    expiresIn?: string | number;
    kid?: string | null;
    sub?: string;
    jti?: string;
    key?: string;
  }): Promise<string>;
}

/** A new key pair, as a client that signs its requests holds it. */
export async function createSigningKey(id: string, alg: 'RS256' | 'ES256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const pem = await exportSPKI(publicKey);
  return {
    id,
    alg,
    pem,
    async sign({ aud = 'blockyard', expiresIn = '5m', kid = id, sub = 'test', jti, key } = {}) {
      return new SignJWT({ sub, ...(jti === undefined ? {} : { jti }), ...(key === undefined ? {} : { key }) })
        .setProtectedHeader({ alg, ...(kid === null ? {} : { kid }) })
        .setIssuedAt()
        .setAudience(aud)
        .setExpirationTime(expiresIn)
        .sign(privateKey);
    },
  };
}

/** The public key entry of `restrictions.jwt.public_keys`. */
export const listed = (key: SigningKey) => ({ id: key.id, alg: key.alg, pem: key.pem });
