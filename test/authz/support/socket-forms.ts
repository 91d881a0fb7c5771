import type { KeyRestrictions } from '../../../src/keys/key-settings.ts';
import { createSigningKey, listed } from '../../support/key-restrictions.ts';
import { connectRaw, type RawClient } from '../../ws/support/ws-client.ts';

/** One way of opening a WebSocket with a key (docs/drop-in.md), and the restrictions its key keeps through every change. */
export interface SocketForm {
  readonly name: string;
  /** A signed-requests form's `jwt` settings: kept beside every change the matrix makes. */
  readonly base: KeyRestrictions;
  open(key: string): Promise<RawClient>;
}

/** Every form a key can open a socket with on `ethereum/devnet`: on /v1/ws and the JSON-RPC URL, key in path, query or header, plain or percent-encoded, with a signed request. */
export async function socketForms(httpUrl: string): Promise<SocketForm[]> {
  const ws = httpUrl.replace('http://', 'ws://');
  const signer = await createSigningKey('matrix-ws', 'ES256');
  const form = (name: string, url: (key: string) => string, headers: (key: string) => Record<string, string> = () => ({})) => ({
    name,
    base: {},
    open: (key: string) => connectRaw(url(key), headers(key)),
  });
  return [
    form('/v1/ws/{chain}/{network}/{apiKey}', (key) => `${ws}/v1/ws/ethereum/devnet/${key}`),
    form('/v1/ws/{chain}/{network}?apiKey=', (key) => `${ws}/v1/ws/ethereum/devnet?apiKey=${key}`),
    form(
      '/v1/ws/{chain}/{network} with X-API-Key',
      () => `${ws}/v1/ws/ethereum/devnet`,
      (key) => ({ 'x-api-key': key }),
    ),
    form('/v1/rpc/{chain}/{network}/{apiKey}', (key) => `${ws}/v1/rpc/ethereum/devnet/${key}`),
    form(
      '/v1/rpc/{chain}/{network} with Bearer <key>',
      () => `${ws}/v1/rpc/ethereum/devnet`,
      (key) => ({ authorization: `Bearer ${key}` }),
    ),
    form('/%761/rpc/{chain}/{network}/%73vc_… (percent-encoded)', (key) => `${ws}/%761/rpc/ethereum/devnet/%73${key.slice(1)}`),
    {
      name: '/v1/ws/{chain}/{network}/{apiKey} with a signed request (Bearer JWT)',
      base: { jwt: { required: true, public_keys: [listed(signer)] } },
      open: async (key) => connectRaw(`${ws}/v1/ws/ethereum/devnet/${key}`, { authorization: `Bearer ${await signer.sign()}` }),
    },
  ];
}
