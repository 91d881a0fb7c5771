import { Type } from 'typebox';

const Id = Type.Union([Type.String(), Type.Number(), Type.Null()]);

export const JsonRpcRequest = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(Id),
    method: Type.String({ examples: ['eth_blockNumber'] }),
    params: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Object({})])),
  },
  { description: 'A JSON-RPC 2.0 call' },
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
