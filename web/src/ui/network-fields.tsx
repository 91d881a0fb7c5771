import { useEffect } from 'react';
import type { ApiError } from '../api/client.ts';
import { getChains } from '../api/client.ts';
import { errorFor, SelectField, TextField } from './components.tsx';
import { useLoad } from './hooks.ts';

/** Chain and network pickers from /dashboard/api/chains (free text when that list cannot be read). */
export function NetworkFields({
  chain,
  network,
  onChange,
  error,
}: {
  chain: string;
  network: string;
  onChange: (chain: string, network: string) => void;
  error: ApiError | undefined;
}) {
  const chains = useLoad(getChains, []);
  const networks = chains.data?.networks ?? [];
  const chainNames = [...new Set(networks.map((entry) => entry.chain))];
  const ofChain = networks.filter((entry) => entry.chain === chain);

  useEffect(() => {
    const first = networks[0];
    if (!chain && first) onChange(first.chain, first.network);
  }, [chain, networks, onChange]);

  if (chains.error || (chains.data && networks.length === 0)) {
    return (
      <>
        <TextField
          label="Chain"
          name="chain"
          required
          value={chain}
          onChange={(event) => onChange(event.target.value, network)}
          error={errorFor(error, 'chain', 'Name the chain, like ethereum.')}
        />
        <TextField
          label="Network"
          name="network"
          value={network}
          hint="Empty: the chain's mainnet for live keys, its first testnet for test keys."
          onChange={(event) => onChange(chain, event.target.value)}
          error={errorFor(error, 'network')}
        />
      </>
    );
  }
  return (
    <>
      <SelectField
        label="Chain"
        name="chain"
        value={chain}
        onChange={(event) => {
          const next = event.target.value;
          onChange(next, networks.find((entry) => entry.chain === next)?.network ?? '');
        }}
        error={errorFor(error, 'chain')}
      >
        {chainNames.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </SelectField>
      <SelectField
        label="Network"
        name="network"
        value={network}
        onChange={(event) => onChange(chain, event.target.value)}
        error={errorFor(error, 'network')}
      >
        {ofChain.map((entry) => (
          <option key={entry.network} value={entry.network}>
            {entry.network}
            {entry.testnet ? ' (testnet)' : ''}
          </option>
        ))}
      </SelectField>
    </>
  );
}
