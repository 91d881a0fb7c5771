export const statusClasses = ['2xx', '4xx', '429', '5xx'] as const;
export type StatusClass = (typeof statusClasses)[number];

/** The usage table's class of an HTTP status: 429 apart (it is what `rate_limited` counts), 1xx-3xx as 2xx. */
export function statusClassOf(status: number): StatusClass {
  if (status === 429) return '429';
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  return '2xx';
}
