import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.ts';
import { assertWebhookUrl } from '../../../src/webhooks/url-policy.ts';

function refusal(input: string, mode: 'development' | 'production'): string {
  try {
    assertWebhookUrl(input, mode);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('invalid_request');
    return (error as AppError).message;
  }
  throw new Error(`${input} was accepted in ${mode}`);
}

describe('assertWebhookUrl in production', () => {
  it('accepts a public https URL and returns it normalized', () => {
    expect(assertWebhookUrl('https://Hooks.Example.com/in?x=1', 'production')).toBe('https://hooks.example.com/in?x=1');
    expect(assertWebhookUrl('https://93.184.216.34:8443/hook', 'production')).toBe('https://93.184.216.34:8443/hook');
  });

  it('refuses http', () => {
    expect(refusal('http://hooks.example.com/in', 'production')).toContain('must be an https URL');
  });

  it.each([
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://[::1]/hook', 'loopback'],
    ['https://localhost/hook', 'loopback'],
    ['https://api.localhost/hook', 'loopback'],
    ['https://2130706433/hook', 'loopback'],
    ['https://[::ffff:127.0.0.1]/hook', 'loopback'],
    ['https://10.0.0.1/hook', 'private'],
    ['https://192.168.1.20/hook', 'private'],
    ['https://172.16.5.5/hook', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'link-local'],
    ['https://metadata.google.internal/hook', 'not a public name'],
    ['https://printer.local/hook', 'not a public name'],
    ['https://intranet/hook', 'not a public name'],
  ])('refuses %s (%s)', (input, reason) => {
    const message = refusal(input, 'production');
    expect(message).toContain(reason);
    expect(message).toContain('webhooks go to public endpoints');
  });

  it('refuses credentials in the URL', () => {
    expect(refusal('https://user:pass@hooks.example.com/', 'production')).toContain('must not carry a user name or password');
    expect(refusal('https://user@hooks.example.com/', 'production')).toContain('must not carry a user name or password');
  });

  it('refuses what is not a URL, or not http(s)', () => {
    expect(refusal('hooks.example.com/in', 'production')).toContain('is not a URL');
    expect(refusal('', 'production')).toContain('is not a URL');
    expect(refusal('ftp://hooks.example.com/', 'production')).toContain('must be an https URL');
  });

  it('refuses a URL over 2048 characters and names the parameter given', () => {
    expect(refusal(`https://hooks.example.com/${'a'.repeat(2048)}`, 'production')).toContain('longer than 2048');
    expect(() => assertWebhookUrl('http://x.example.com', 'production', 'new_url')).toThrow("'new_url'");
  });
});

describe('assertWebhookUrl in development', () => {
  it('allows http and loopback', () => {
    expect(assertWebhookUrl('http://127.0.0.1:3000/hook', 'development')).toBe('http://127.0.0.1:3000/hook');
    expect(assertWebhookUrl('http://localhost:3000/hook', 'development')).toBe('http://localhost:3000/hook');
    expect(assertWebhookUrl('http://[::1]:3000/hook', 'development')).toBe('http://[::1]:3000/hook');
  });

  it('still refuses private and link-local addresses, and says loopback is allowed', () => {
    const message = refusal('http://10.0.0.1/hook', 'development');
    expect(message).toContain('address 10.0.0.1 is private');
    expect(message).toContain('development mode also allows loopback');
    expect(refusal('http://169.254.1.1/', 'development')).toContain('link-local');
    expect(refusal('http://db.internal/', 'development')).toContain('not a public name');
  });

  it('still refuses other schemes', () => {
    expect(refusal('ws://127.0.0.1/hook', 'development')).toContain('must be an http or https URL');
  });
});
