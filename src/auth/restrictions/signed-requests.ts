import { decodeProtectedHeader, errors, importSPKI, jwtVerify } from 'jose';
import { type AppError, unauthorized } from '../../core/errors.ts';
import type { JwtPublicKey, KeyRestrictions } from '../../keys/key-settings.ts';

/** A token's `exp` may be at most this far ahead: a leaked token is good for a day at most. */
export const maxJwtLifetimeMs = 24 * 60 * 60 * 1000;
/** A token's `iat` may be this far ahead of this server's clock (the signer's clock may run a little fast). */
const maxIssuedAheadMs = 60_000;
/** Verified tokens remembered (by their text, until their exp), so a re-sent token costs no signature check. */
const maxRememberedTokens = 10_000;

type VerificationKey = Awaited<ReturnType<typeof importSPKI>>;

interface CompiledPublicKey {
  readonly listed: JwtPublicKey;
  /** Imported on first use, once per restrictions object. */
  imported?: Promise<VerificationKey>;
}

/** A key's `restrictions.jwt`, ready to verify against. */
export interface SignedRequestRule {
  readonly required: boolean;
  readonly keys: ReadonlyMap<string, CompiledPublicKey>;
  /** Each token once: its `jti`, remembered until its `exp`. */
  readonly singleUse: boolean;
  /** The token's `sub` (or `key` claim) must be the key's id. */
  readonly bindToKey: boolean;
}

export function compileSignedRequestRule(jwt: NonNullable<KeyRestrictions['jwt']>): SignedRequestRule | undefined {
  if (!jwt.required && jwt.public_keys.length === 0) return undefined;
  return {
    required: jwt.required,
    keys: new Map(jwt.public_keys.map((listed) => [listed.id, { listed }])),
    singleUse: jwt.single_use === true,
    bindToKey: jwt.bind_to_key === true,
  };
}

/** Where single-use tokens' ids are remembered (every process shares it): false when `jti` was used already. */
export interface UsedTokenStore {
  firstUse(keyId: string, jti: string, expiresAtMs: number): Promise<boolean>;
}

/** The request a token comes with: the key it is presented beside, and whether it is taken (single use). */
export interface TokenUse {
  readonly keyId: string;
  /** False when the token was taken already for this very connection (an open WebSocket checked again). */
  readonly consume: boolean;
}

/** The claims a verified token is held to beyond its signature. */
interface VerifiedToken {
  readonly expiresAtMs: number;
  readonly sub?: unknown;
  readonly key?: unknown;
  readonly jti?: unknown;
}

/** A `jti` longer than this is refused (it is stored). */
const maxJtiLength = 128;

export interface SignedRequestVerifier {
  /**
   * Resolves when `token` (the request's Bearer JWT, or undefined) satisfies `rule`; else rejects with a
   * 401 naming what is wrong. `rule` identifies the key's restrictions: a token verified for one key's
   * public keys is not taken for another's.
   */
  verify(rule: SignedRequestRule, token: string | undefined, use: TokenUse): Promise<void>;
}

/** `audience`: the `aud` every token must carry (setting `jwt_audience`). */
export function createSignedRequestVerifier(options: {
  audience: string;
  now?: () => number;
  /** Required for keys with `jwt.single_use`; without it such a key's tokens are refused. */
  usedTokens?: UsedTokenStore;
}): SignedRequestVerifier {
  const { audience, now = Date.now } = options;
  const verified = new Map<string, { rule: SignedRequestRule; token: VerifiedToken }>();

  const remember = (text: string, rule: SignedRequestRule, token: VerifiedToken) => {
    if (verified.size >= maxRememberedTokens) verified.delete(verified.keys().next().value as string);
    verified.set(text, { rule, token });
  };

  /** The rules beyond the signature, checked on every request (a remembered token included). */
  const holdToRule = async (rule: SignedRequestRule, token: VerifiedToken, use: TokenUse) => {
    if (rule.bindToKey && token.sub !== use.keyId && token.key !== use.keyId)
      throw unauthorized(
        `the JWT is not bound to this API key (restrictions.jwt.bind_to_key): its sub or key claim must be '${use.keyId}'`,
      );
    if (!rule.singleUse || !use.consume) return;
    if (typeof token.jti !== 'string' || token.jti === '' || token.jti.length > maxJtiLength)
      throw unauthorized(
        `this API key takes each signed request once (restrictions.jwt.single_use): the JWT needs a jti claim (a string of 1-${maxJtiLength} characters)`,
      );
    if (!options.usedTokens || !(await options.usedTokens.firstUse(use.keyId, token.jti, token.expiresAtMs)))
      throw unauthorized(
        `this signed request was already used (jti '${token.jti}'): this API key takes each JWT once (restrictions.jwt.single_use); sign a new one`,
      );
  };

  return {
    async verify(rule, token, use) {
      if (token === undefined) {
        if (!rule.required) return;
        throw unauthorized(
          "this API key requires signed requests (restrictions.jwt): send 'Authorization: Bearer <JWT>' besides the key",
        );
      }
      const known = verified.get(token);
      if (known !== undefined && known.rule === rule) {
        if (known.token.expiresAtMs > now()) return holdToRule(rule, known.token, use);
        verified.delete(token);
      }
      const checked = await verifyToken(rule, token, audience, now());
      remember(token, rule, checked);
      await holdToRule(rule, checked, use);
    },
  };
}

/** The token's expiry (ms) and the claims held to further, when it is valid for `rule`; else the 401 naming what is wrong. */
async function verifyToken(rule: SignedRequestRule, token: string, audience: string, nowMs: number): Promise<VerifiedToken> {
  const publicKey = pickPublicKey(rule, token);
  const { listed } = publicKey;
  publicKey.imported ??= importSPKI(listed.pem, listed.alg);
  let key: VerificationKey;
  try {
    key = await publicKey.imported;
  } catch {
    throw unauthorized(`the public key '${listed.id}' of this API key does not parse: replace it`);
  }
  let exp: number;
  let iat: number | undefined;
  let claims: Omit<VerifiedToken, 'expiresAtMs'>;
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: [listed.alg],
      audience,
      requiredClaims: ['exp'],
      currentDate: new Date(nowMs),
    });
    exp = payload.exp as number;
    iat = payload.iat;
    claims = { sub: payload.sub, key: payload.key, jti: payload.jti };
  } catch (error) {
    throw jwtRefusal(error, listed, audience);
  }
  if (iat !== undefined && iat * 1000 > nowMs + maxIssuedAheadMs) {
    throw unauthorized("the JWT's issued-at time (iat) is in the future: check the clock of the machine that signs tokens");
  }
  const expiresAtMs = exp * 1000;
  if (expiresAtMs - nowMs > maxJwtLifetimeMs) {
    throw unauthorized('the JWT expires more than 24 h from now (exp): sign tokens that expire within 24 hours');
  }
  return { expiresAtMs, ...claims };
}

/** The listed public key the token's `kid` names (without a kid: the only one listed), or a 401. */
function pickPublicKey(rule: SignedRequestRule, token: string): CompiledPublicKey {
  let kid: unknown;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw unauthorized('malformed JWT: its header does not decode');
  }
  if (kid === undefined && rule.keys.size === 1) return rule.keys.values().next().value as CompiledPublicKey;
  if (typeof kid !== 'string') throw unauthorized("the JWT has no kid header naming one of this API key's public keys");
  const found = rule.keys.get(kid);
  if (found === undefined) throw unauthorized(`the JWT's kid '${kid}' is not one of this API key's public keys`);
  return found;
}

function jwtRefusal(error: unknown, listed: JwtPublicKey, audience: string): AppError {
  if (error instanceof errors.JWTExpired) return unauthorized('the JWT has expired (exp)');
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return unauthorized(`the JWT's signature does not verify with the public key '${listed.id}'`);
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return unauthorized(`the JWT's audience (aud) must be '${audience}'`);
    if (error.claim === 'exp') return unauthorized('the JWT has no valid exp claim: it must expire within 24 hours');
    return unauthorized(`the JWT's claim '${error.claim}' is not valid: ${error.reason}`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return unauthorized(`the JWT's alg is not ${listed.alg}, the alg of the public key '${listed.id}'`);
  }
  return unauthorized(`malformed JWT: ${(error as Error).message}`);
}
