/**
 * How upstreams say "ask for fewer blocks": geth and Infura ("query returned more than 10000 results",
 * code -32005), Alchemy ("Log response size exceeded", "requests with up to a 2K block range"),
 * QuickNode ("eth_getLogs is limited to a 10,000 range"), Ankr ("maximum [from, to] blocks distance:
 * 3000"), Infura's newer "range N exceeds limit of 10000", and the many "block range too large/wide,
 * max N" variants. Not a node in trouble: another node would say the same, so it is never failed over; the
 * eth_getLogs splitter narrows the range instead.
 */
const rangeTooLarge = [
  /range (is )?too (large|wide|big|long)/i,
  /more than \d+ (results|logs)/i,
  /(exceed|maximum|max|limit)[^.]{0,40}block range/i,
  /block range[^.]{0,40}(exceed|maximum|max|limit)/i,
  /response size (is )?(exceeded|too large|should not)/i,
  /too many (results|logs|blocks)/i,
  /up to an? [\d,]+\s*k?\s*block range/i,
  /eth_getLogs (and eth_newFilter )?(is|are) limited to/i,
  /limited to an? [\d,]+\s*k?\s*(blocks? )?range/i,
  /max(imum)? range\b/i,
  /blocks? distance/i,
  /range \d+ exceeds? (the )?limit/i,
];

export function isRangeTooLargeMessage(message: string): boolean {
  return rangeTooLarge.some((pattern) => pattern.test(message));
}
