/**
 * Largest request bodies (a larger one is 413 `payload_too_large`, naming the limit). JSON-RPC has its
 * own (src/rpc/answer-rpc.ts, 5 MiB: 100-call batches of large calls).
 */

/** Every REST route unless it says otherwise (setting `limits.max_body_bytes`): far above any of their bodies. */
export const defaultRestBodyLimit = 64 * 1024;

/**
 * Routes whose body carries lists of up to 10,000 entries (webhook filters, gas policy rules: 10,000
 * addresses are ~450 KB of JSON), and the bundler's JSON-RPC (an op's initCode and callData).
 */
export const listBodyLimit = 1024 * 1024;

/** Webhook create and update, whose `config.addresses` takes up to 100,000 addresses (~4.5 MB of JSON). */
export const webhookBodyLimit = 5 * 1024 * 1024;
