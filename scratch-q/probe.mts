import { createPublicClient, http, parseEther, encodeFunctionData } from 'viem';
import { foundry } from 'viem/chains';
import { installErc4337Contracts } from '/work/wt-queued/src/erc4337/contracts/install.ts';
const url = 'http://127.0.0.1:18545';
const d = await installErc4337Contracts(url);
console.log(d);
const c = createPublicClient({ chain: foundry, transport: http(url) });
// factory createAccount from sender creator-ish: just call factory directly
const data = encodeFunctionData({ abi: [{type:'function',name:'createAccount',inputs:[{type:'address',name:'o'},{type:'uint256',name:'s'}],outputs:[{type:'address'}],stateMutability:'nonpayable'}], functionName:'createAccount', args:['0x1111111111111111111111111111111111111111', 0n]});
const r = await c.request({ method: 'debug_traceCall' as never, params: [{ to: d.v07.factory, data, from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }, 'latest', { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }] as never });
console.log(JSON.stringify(r, null, 1).slice(0, 3000));
