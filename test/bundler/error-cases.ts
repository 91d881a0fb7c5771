import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { sponsoredPaymasterFields } from '../../src/paymaster/paymaster-data.ts';
import { chainId, type Draft, type ErrorBench, type Version } from './error-bench.ts';

const now = () => Math.floor(Date.now() / 1000);

/** One EntryPoint failure: an op broken only that way (drafted on the bench), and the code and reason it must get. */
export interface AaCase {
  version: Version;
  reason: string;
  code: number;
  draft: (bench: ErrorBench) => Promise<Draft>;
}

/** Every AAxx case the bundler can meet in validation, on real contracts of the devnet. */
export const aaCases: AaCase[] = [
  {
    version: '0.7',
    reason: 'AA10',
    code: -32500,
    draft: async (b) => ({ version: '0.7', sender: b.deployed.address, fields: b.deployedFactory, signature: b.owner }),
  },
  {
    version: '0.7',
    reason: 'AA13',
    code: -32500,
    draft: async (b) => {
      const account = await b.counterfactual('0.7', parseEther('1'));
      return {
        version: '0.7',
        sender: account.sender,
        fields: account.deployment,
        verificationGasLimit: 10_000n,
        signature: account.by,
      };
    },
  },
  {
    version: '0.7',
    reason: 'AA21',
    code: -32500,
    draft: async (b) => {
      const account = await b.counterfactual('0.7', 0n);
      return { version: '0.7', sender: account.sender, fields: account.deployment, signature: account.by };
    },
  },
  {
    version: '0.7',
    reason: 'AA22',
    code: -32503,
    draft: async (b) => ({ version: '0.7', sender: b.expiredAccount, verificationGasLimit: 100_000n, signature: '0x' }),
  },
  {
    // SimpleAccount's ECDSA.recover reverts on a signature that is not 65 bytes.
    version: '0.7',
    reason: 'AA23',
    code: -32500,
    draft: async (b) => ({ version: '0.7', sender: b.deployed.address, signature: '0xdeadbeef' }),
  },
  {
    version: '0.7',
    reason: 'AA24',
    code: -32507,
    draft: async (b) => ({ version: '0.7', sender: b.deployed.address, signature: privateKeyToAccount(generatePrivateKey()) }),
  },
  {
    version: '0.7',
    reason: 'AA25',
    code: -32500,
    draft: async (b) => ({ version: '0.7', sender: b.deployed.address, nonce: 5n, signature: b.owner }),
  },
  {
    version: '0.7',
    reason: 'AA26',
    code: -32500,
    draft: async (b) => ({ version: '0.7', sender: b.burningAccount['0.7'], verificationGasLimit: 100_000n, signature: '0x' }),
  },
  {
    version: '0.7',
    reason: 'AA30',
    code: -32501,
    draft: async (b) => ({
      version: '0.7',
      sender: b.deployed.address,
      paymaster: b.paymasterFields(privateKeyToAccount(generatePrivateKey()).address, b.stubData()),
      signature: b.owner,
    }),
  },
  {
    version: '0.7',
    reason: 'AA31',
    code: -32508,
    draft: async (b) => ({
      version: '0.7',
      sender: b.deployed.address,
      paymaster: b.paymasterFields(b.unfundedPaymaster, b.stubData()),
      signature: b.owner,
    }),
  },
  {
    version: '0.7',
    reason: 'AA32',
    code: -32503,
    draft: async (b) => ({
      version: '0.7',
      sender: b.deployed.address,
      paymaster: async (op) => {
        const { version: _v, ...fields } = await sponsoredPaymasterFields({
          setup: b.setupOf('0.7'),
          chainId,
          op,
          validUntil: now() - 60,
          validAfter: 0,
        });
        return fields;
      },
      signature: b.owner,
    }),
  },
  {
    // The VerifyingPaymaster reverts on paymasterData too short to hold its time range and signature.
    version: '0.7',
    reason: 'AA33',
    code: -32501,
    draft: async (b) => ({
      version: '0.7',
      sender: b.deployed.address,
      paymaster: b.paymasterFields(b.setupOf('0.7').address, '0x1234'),
      signature: b.owner,
    }),
  },
  {
    // ERC-7677 stub data: the right shape, a signature that recovers to no sponsor.
    version: '0.7',
    reason: 'AA34',
    code: -32507,
    draft: async (b) => ({
      version: '0.7',
      sender: b.deployed.address,
      paymaster: b.paymasterFields(b.setupOf('0.7').address, b.stubData()),
      signature: b.owner,
    }),
  },
  {
    version: '0.7',
    reason: 'AA36',
    code: -32501,
    draft: async (b) => ({
      version: '0.7',
      sender: b.deployed.address,
      paymaster: b.paymasterFields(b.burningPaymaster, '0x', 50_000n),
      signature: b.owner,
    }),
  },
  {
    version: '0.6',
    reason: 'AA21',
    code: -32500,
    draft: async (b) => {
      const account = await b.counterfactual('0.6', 0n);
      return { version: '0.6', sender: account.sender, fields: account.deployment, signature: account.by };
    },
  },
  {
    version: '0.6',
    reason: 'AA24',
    code: -32507,
    draft: async (b) => {
      const account = await b.counterfactual('0.6', parseEther('1'));
      return {
        version: '0.6',
        sender: account.sender,
        fields: account.deployment,
        signature: privateKeyToAccount(generatePrivateKey()),
      };
    },
  },
  {
    version: '0.6',
    reason: 'AA33',
    code: -32501,
    draft: async (b) => {
      const account = await b.counterfactual('0.6', parseEther('1'));
      return {
        version: '0.6',
        sender: account.sender,
        fields: { ...account.deployment, paymasterAndData: `${b.setupOf('0.6').address}1234` },
        signature: account.by,
      };
    },
  },
  {
    version: '0.6',
    reason: 'AA40',
    code: -32500,
    draft: async (b) => ({ version: '0.6', sender: b.burningAccount['0.6'], verificationGasLimit: 100_000n, signature: '0x' }),
  },
  {
    // v0.6 says it with require(): an Error("AA41 …"), not a FailedOp.
    version: '0.6',
    reason: 'AA41',
    code: -32500,
    draft: async (b) => ({
      version: '0.6',
      sender: b.burningAccount['0.6'],
      verificationGasLimit: 100_000n,
      fields: { paymasterAndData: b.setupOf('0.6').address },
      signature: '0x',
    }),
  },
];
