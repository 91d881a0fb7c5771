import { describe, expect, it } from 'vitest';
import { apiKeyInPath, maskApiKey, maskKeysInUrl, redactUrl } from '../../src/auth/key-in-path.ts';

const key = `svc_test_${'4fRk'}${'x'.repeat(40)}`;

describe('what a log line may show of a key in a URL', () => {
  it('the URL forms: the key cut to its prefix and …, whatever follows it', () => {
    expect(redactUrl(`/v1/rpc/ethereum/devnet/${key}`)).toBe('/v1/rpc/ethereum/devnet/svc_test_4fRk…');
    expect(redactUrl(`/v1/bundler/base/sepolia/${key}/`)).toBe('/v1/bundler/base/sepolia/svc_test_4fRk…/');
    expect(redactUrl(`/v1/ws/ethereum/devnet/${key}?x=1`)).toBe('/v1/ws/ethereum/devnet/svc_test_4fRk…?x=1');
    expect(redactUrl(`/v1/rpc/ethereum/devnet/${key}/getNFTsForOwner?owner=0x1`)).toBe(
      '/v1/rpc/ethereum/devnet/svc_test_4fRk…/getNFTsForOwner?owner=0x1',
    );
    expect(redactUrl(`/V1/RPC/ethereum/devnet/${key}`)).toBe('/V1/RPC/ethereum/devnet/svc_test_4fRk…');
  });

  it('another provider’s key, a mistyped key: at most 4 characters and a quarter of it', () => {
    expect(redactUrl('/v1/rpc/ethereum/mainnet/alcht_0123456789abcdefghij')).toBe('/v1/rpc/ethereum/mainnet/alch…');
    expect(redactUrl('/v1/rpc/ethereum/mainnet/abc')).toBe('/v1/rpc/ethereum/mainnet/…');
    expect(maskApiKey('12345678')).toBe('12…');
  });

  it('one of our keys anywhere else, percent-encoded or in the query', () => {
    expect(redactUrl(`/v1/tokens/${key}`)).toBe('/v1/tokens/svc_test_4fRk…');
    expect(redactUrl(`/v1/rpc/ethereum/devnet/${key.replace(/_/g, '%5F')}`)).toBe('/v1/rpc/ethereum/devnet/svc_test_4fRk…');
    expect(redactUrl(`/v1/ws/ethereum/devnet?apiKey=${key}`)).toBe('/v1/ws/ethereum/devnet?apiKey=[redacted]');
    expect(redactUrl(`//v1/rpc/ethereum/devnet/${key}`)).toBe('//v1/rpc/ethereum/devnet/svc_test_4fRk…');
  });

  it('any spelling of the path or query: unreserved characters decoded first, as the router reads them', () => {
    const encoded = `%73${key.slice(1)}`;
    expect(redactUrl(`/%761/rpc/ethereum/devnet/${encoded}`)).toBe('/v1/rpc/ethereum/devnet/svc_test_4fRk…');
    expect(redactUrl(`/v1/%72pc/ethereum/devnet/${key}`)).toBe('/v1/rpc/ethereum/devnet/svc_test_4fRk…');
    expect(redactUrl(`/v1/ws/ethereum/devnet?%61piKey=${encoded}`)).toBe('/v1/ws/ethereum/devnet?apiKey=[redacted]');
    expect(redactUrl('/%64ashboard/sign-in/abc')).toBe('/dashboard/sign-in/[redacted]');
    // Other escapes stay as they are: the result means what the URL meant.
    expect(redactUrl('/v1/tokens/%2F%25')).toBe('/v1/tokens/%2F%25');
    expect(apiKeyInPath(`/%761/rpc/ethereum/devnet/${encoded}`)).toBe(key);
  });

  it('URLs without a key are left as they are', () => {
    for (const url of ['/v1/rpc/ethereum/devnet', '/v1/rpc/ethereum/devnet/', '/v1/tokens/ethereum/balances/0xabc', '/healthz'])
      expect(maskKeysInUrl(url)).toBe(url);
  });

  it('finds the key of the URL forms, decoded as the router decodes it', () => {
    expect(apiKeyInPath(`/v1/rpc/ethereum/devnet/${key}`)).toBe(key);
    expect(apiKeyInPath(`/v1/rpc/ethereum/devnet/${key.replace('_', '%5F')}/more`)).toBe(key);
    expect(apiKeyInPath('/v1/rpc/ethereum/devnet/%E0%A4%A')).toBe('%E0%A4%A');
    expect(apiKeyInPath('/v1/rpc/ethereum/devnet')).toBeUndefined();
    expect(apiKeyInPath('/v1/tokens/ethereum/balances/0xabc')).toBeUndefined();
  });
});
