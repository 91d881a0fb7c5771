import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/auth/key-in-path.ts';
import { hashPassword, verifyPassword } from '../../src/dashboard/passwords.ts';
import { hashSecretToken, newSecretToken } from '../../src/dashboard/secret-token.ts';

describe('dashboard secrets', () => {
  it('hashes passwords with scrypt and a salt of their own, and verifies them', async () => {
    const first = await hashPassword('correct horse battery');
    const second = await hashPassword('correct horse battery');
    expect(first).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('correct horse');
    expect(await verifyPassword('correct horse battery', first)).toBe(true);
    expect(await verifyPassword('correct horse batterY', first)).toBe(false);
    expect(await verifyPassword('correct horse battery', null)).toBe(false);
    expect(await verifyPassword('correct horse battery', 'scrypt$garbage')).toBe(false);
  });

  it('keeps tokens as SHA-256 only, and out of log lines', () => {
    const token = newSecretToken();
    expect(token.length).toBeGreaterThanOrEqual(43);
    expect(hashSecretToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(redactUrl(`/dashboard/sign-in/${token}`)).toBe('/dashboard/sign-in/[redacted]');
    expect(redactUrl(`/reset-password?token=${token}`)).toBe('/reset-password?token=[redacted]');
  });
});
