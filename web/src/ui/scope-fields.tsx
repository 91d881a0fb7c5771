// The service's own scope list (a module with no imports): the dashboard cannot offer a scope it lacks.
import { useId } from 'react';
import { type Scope, scopes } from '../../../src/auth/scopes.ts';

const scopeHelp: Record<Scope, string> = {
  'rpc:read': 'JSON-RPC reads, WebSocket, bundler reads',
  'rpc:write': 'eth_sendRawTransaction and other sends',
  'data:read': 'tokens, NFTs, gas prices',
  'wallets:manage': 'smart wallets',
  'webhooks:manage': 'webhooks',
  'gas:manage': 'gas policies and sponsorship',
  'bundler:send': 'eth_sendUserOperation',
};

/** A checkbox per scope, each with what it allows; `error` (the API's, about `scopes`) below them. */
export function ScopeFields({
  chosen,
  onToggle,
  error,
}: {
  chosen: ReadonlySet<Scope>;
  onToggle: (scope: Scope) => void;
  error: string | undefined;
}) {
  const errorId = useId();
  return (
    <fieldset className={`field${error ? ' field-invalid' : ''}`} aria-describedby={error ? errorId : undefined}>
      <legend>Scopes</legend>
      <div className="checkbox-grid">
        {scopes.map((scope) => (
          <label key={scope} className="checkbox">
            <input type="checkbox" name="scopes" value={scope} checked={chosen.has(scope)} onChange={() => onToggle(scope)} />
            <span>
              <code>{scope}</code>
              <span className="muted"> {scopeHelp[scope]}</span>
            </span>
          </label>
        ))}
      </div>
      {error && (
        <div className="field-error" id={errorId} role="alert">
          {error}
        </div>
      )}
    </fieldset>
  );
}
