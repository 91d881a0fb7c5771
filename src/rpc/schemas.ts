import { Type } from 'typebox';

const Id = Type.Union([Type.String(), Type.Number(), Type.Null()]);

/** A request's id must come back unchanged: a string, a safe integer or null (docs/errors.md, -32600). */
const RequestId = Type.Union([Type.String(), Type.Integer({ minimum: -(2 ** 53 - 1), maximum: 2 ** 53 - 1 }), Type.Null()]);

export const JsonRpcRequest = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(RequestId),
    method: Type.String({ examples: ['eth_blockNumber'] }),
    params: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Object({}), Type.Null()])),
  },
  {
    description:
      'A JSON-RPC 2.0 call: these four members and no other (a call with another member, e.g. METHOD or Params, is refused with -32600); params nest at most 64 levels',
    additionalProperties: false,
  },
);

export const JsonRpcResponse = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Id,
    result: Type.Optional(Type.Unknown()),
    error: Type.Optional(Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) })),
  },
  { description: 'A JSON-RPC 2.0 answer: result as returned by the chain, or an error object' },
);

export const RpcPathParams = Type.Object({
  chain: Type.String({ description: 'Chain, e.g. ethereum' }),
  network: Type.String({ description: 'Network, e.g. mainnet, sepolia, devnet' }),
});
