import { Webhook } from 'standardwebhooks';
import { createWalletClient, http, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { callJson, waitFor } from './calls.ts';

interface Received {
  headers: Record<string, string>;
  body: string;
}

/**
 * An `address_activity` webhook on a fresh address, delivered to the receiver inside the compose
 * network (by its address: production mode takes plain http only to `webhooks.private_destinations`); an ETH transfer to that address; the delivery verified with its signing secret. Seconds
 * from the transfer's send to the verified delivery.
 */
export async function deliverOneWebhook(
  urls: { lb: string; chain: string; receiver: string; receiverInbox: string },
  key: string,
): Promise<number> {
  const watched = privateKeyToAccount(generatePrivateKey()).address;
  const webhook = await callJson(`${urls.lb}/v1/webhooks`, {
    headers: { 'x-api-key': key },
    body: {
      url: urls.receiver,
      chain: 'ethereum',
      network: 'devnet',
      event_type: 'address_activity',
      config: { addresses: [watched] },
    },
  });
  const sender = privateKeyToAccount(generatePrivateKey());
  const wallet = createWalletClient({ account: sender, chain: foundry, transport: http(urls.chain) });
  // Funded with anvil's dev method: no shared sender, so no nonce raced with the bundler's executor.
  await wallet.request({
    method: 'anvil_setBalance' as never,
    params: [sender.address, `0x${parseEther('1').toString(16)}`] as never,
  });
  const sentAt = Date.now();
  await wallet.sendTransaction({ to: watched, value: parseEther('0.01') });
  const delivery = await waitFor(async () => {
    const inbox = (await callJson(urls.receiverInbox)) as Received[];
    return inbox.find((item) => item.body.toLowerCase().includes(watched.toLowerCase()));
  }, 90_000);
  if (!delivery) throw new Error(`no webhook delivery for ${watched} within 90 s`);
  new Webhook(webhook.signing_secret as string).verify(delivery.body, delivery.headers);
  return (Date.now() - sentAt) / 1_000;
}
