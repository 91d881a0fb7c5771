type Labels = Readonly<Record<string, string>>;

/**
 * The sum of a metric's samples in Prometheus text whose labels include every one given (0 when none
 * matches): the value itself when the labels name one series.
 */
export function sumOfSamples(text: string, name: string, labels: Labels = {}): number {
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  let sum = 0;
  for (const line of text.split('\n')) {
    const ofMetric = line.startsWith(`${name}{`) || line.startsWith(`${name} `);
    if (ofMetric && wanted.every((part) => line.includes(part))) sum += Number(line.split(' ').at(-1));
  }
  return sum;
}

/** sumOfSamples over a running service's GET /metrics. */
export async function metricSum(serviceUrl: string, name: string, labels: Labels = {}): Promise<number> {
  const text = await (await fetch(`${serviceUrl}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  return sumOfSamples(text, name, labels);
}
