// The key page's form (web/src/pages/key-form-values.ts): the PATCH body it sends, and each 400 of
// the API placed at the field it names, with a list entry named by the line it was typed on.
import { describe, expect, it } from 'vitest';
import { ApiError, paramOf } from '../../web/src/api/client.ts';
import { type KeyFormValues, patchOf, placedError } from '../../web/src/pages/key-form-values.ts';

const blank: KeyFormValues = {
  name: 'frontend',
  scopes: new Set(['data:read', 'rpc:read']),
  lists: { origins: '', ips: '', contracts: '', methods: '' },
  jwtRequired: false,
  publicKeys: [],
  limits: { rps: '', rpd: '', cups: '' },
};

const refusal = (message: string) => new ApiError('invalid_request', message, 400, paramOf(message));

describe('the key form', () => {
  it('sends one entry per non-blank line, leaves empty lists and limits out, and typed limits as numbers', () => {
    const { body, lines } = patchOf({
      ...blank,
      lists: { ...blank.lists, origins: ' https://app.example.com \n', ips: '203.0.113.0/24\n\n  \n10.0.0.0/33' },
      limits: { rps: '50', rpd: '', cups: 'lots' },
    });
    expect(body).toEqual({
      name: 'frontend',
      scopes: ['rpc:read', 'data:read'],
      restrictions: { origins: ['https://app.example.com'], ips: ['203.0.113.0/24', '10.0.0.0/33'] },
      limits: { rps: 50, cups: 'lots' },
    });
    expect(lines.ips).toEqual([1, 4]);
  });

  it('sends signed requests when required or given keys, and not otherwise', () => {
    expect(patchOf(blank).body.restrictions.jwt).toBeUndefined();
    expect(patchOf({ ...blank, jwtRequired: true }).body.restrictions.jwt).toEqual({ required: true, public_keys: [] });
    const withKey = patchOf({ ...blank, publicKeys: [{ id: ' ci ', alg: 'ES256', pem: '\nPEM\n' }] });
    expect(withKey.body.restrictions.jwt).toEqual({ required: false, public_keys: [{ id: 'ci', alg: 'ES256', pem: 'PEM' }] });
  });

  it('places a list entry’s refusal at its field, named by the line it was typed on', () => {
    const { lines } = patchOf({ ...blank, lists: { ...blank.lists, ips: '203.0.113.0/24\n\n10.0.0.0/33' } });
    const error = refusal(
      "invalid parameter 'restrictions.ips[1]': '10.0.0.0/33' is not a CIDR range: the prefix length must be 0 to 32",
    );
    expect(placedError(error, lines)).toEqual({
      field: 'ips',
      message: "Line 3: '10.0.0.0/33' is not a CIDR range: the prefix length must be 0 to 32.",
    });
    // A refusal by the route's schema reads the same.
    expect(placedError(refusal("invalid body 'restrictions.origins[0]': must be at most 300 characters long"), lines)).toEqual({
      field: 'origins',
      message: 'Line 1: Must be at most 300 characters long.',
    });
  });

  it('places public keys’, signed requests’ and limits’ refusals, and leaves others to the page', () => {
    const at = (message: string) => placedError(refusal(message), undefined);
    expect(at("invalid parameter 'restrictions.jwt.public_keys[1].pem': does not parse as an SPKI public key")).toEqual({
      field: 'publicKeys.1.pem',
      message: 'Does not parse as an SPKI public key.',
    });
    expect(
      at("invalid parameter 'restrictions.jwt.public_keys': list at least one public key when jwt.required is true"),
    ).toEqual({ field: 'jwt', message: 'List at least one public key when jwt.required is true.' });
    expect(at("invalid body 'limits.rps': must be a whole number or null")).toEqual({
      field: 'rps',
      message: 'Must be a whole number or null.',
    });
    expect(at("missing required body 'name'")).toEqual({ field: 'name', message: 'Give the key a name.' });
    expect(at("invalid body 'name': must not be empty")).toEqual({ field: 'name', message: 'Give the key a name.' });
    expect(at("invalid parameter 'scopes': name at least one scope")).toEqual({
      field: 'scopes',
      message: 'Name at least one scope.',
    });
    expect(at("invalid parameter 'restrictions': must be object")).toBeUndefined();
    expect(placedError(new ApiError('forbidden', 'no', 403), undefined)).toBeUndefined();
  });
});
