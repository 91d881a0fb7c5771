/** The EntryPoint version a paymaster serves. */
export type PaymasterVersion = '0.6' | '0.7' | '0.8';
