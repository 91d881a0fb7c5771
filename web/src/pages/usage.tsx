import { useMemo, useState } from 'react';
import { listKeys } from '../api/client.ts';
import type { Usage } from '../api/types.ts';
import { useSession } from '../session.tsx';
import { type ChartPoint, Meter, TimeChart } from '../ui/chart.tsx';
import { Card, Empty, ErrorMessage, Loading, PageHeader, TableWrap } from '../ui/components.tsx';
import { formatLimit, formatNumber } from '../ui/format.ts';
import { useLoad, useTitle } from '../ui/hooks.ts';
import { defaultUsageRange, type UsageRange, usageByKey, usageByMethod, usageRanges, usageWindow } from './usage-window.ts';

type Metric = 'requests' | 'compute_units' | 'rate_limited';

/** The series summed per bucket over [from, to), buckets with nothing included. */
function bucketed(usage: Usage | undefined, metric: Metric, from: number, to: number, bucketMs: number): ChartPoint[] {
  const start = Math.floor(from / bucketMs) * bucketMs;
  const sums = new Map<number, number>();
  for (let t = start; t < to; t += bucketMs) sums.set(t, 0);
  for (const series of usage?.series ?? []) {
    for (const point of series.points) {
      const t = Math.floor(new Date(point.t).getTime() / bucketMs) * bucketMs;
      sums.set(t, (sums.get(t) ?? 0) + point[metric]);
    }
  }
  return [...sums].map(([t, value]) => ({ t, value })).sort((a, b) => a.t - b.t);
}

function breakdown(usage: Usage | undefined) {
  return (usage?.series ?? [])
    .map((series) => ({
      group: series.group,
      requests: series.points.reduce((sum, point) => sum + point.requests, 0),
      compute_units: series.points.reduce((sum, point) => sum + point.compute_units, 0),
      rate_limited: series.points.reduce((sum, point) => sum + point.rate_limited, 0),
    }))
    .sort((a, b) => b.requests - a.requests);
}

export default function UsagePage() {
  useTitle('Usage');
  const session = useSession();
  const [range, setRange] = useState<UsageRange>(defaultUsageRange);
  const { bucketMs } = usageRanges[range];
  // The window is fixed when the range is picked (and on refresh), so the three queries agree.
  const [round, setRound] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new window on each refresh
  const span = useMemo(() => usageWindow(range), [range, round]);
  const byKey = useLoad(() => usageByKey(range, span), [span, range]);
  const byMethod = useLoad(() => usageByMethod(range, span), [span, range]);
  const keys = useLoad(listKeys, []);
  const keyNames = new Map((keys.data?.keys ?? []).map((key) => [key.id, `${key.name} (${key.prefix}…)`]));
  const usage = byKey.data;
  const limits = usage?.limits ?? session.account.limits;

  const charts: { metric: Metric; label: string; tone: 'primary' | 'accent' | 'danger' }[] = [
    { metric: 'requests', label: 'Requests', tone: 'primary' },
    { metric: 'compute_units', label: 'Compute units', tone: 'accent' },
    { metric: 'rate_limited', label: 'Rate limited (429)', tone: 'danger' },
  ];

  return (
    <>
      <PageHeader
        title="Usage"
        description={`Requests, compute units and rate-limited calls of every key of ${session.account.name}.`}
        actions={
          <>
            <fieldset className="segmented" aria-label="Time range">
              {(Object.keys(usageRanges) as UsageRange[]).map((name) => (
                <button key={name} type="button" aria-pressed={range === name} onClick={() => setRange(name)}>
                  {name}
                  <span className="visually-hidden"> ({usageRanges[name].label})</span>
                </button>
              ))}
            </fieldset>
            <button type="button" className="button button-secondary" onClick={() => setRound((value) => value + 1)}>
              Refresh
            </button>
          </>
        }
      />
      <ErrorMessage error={byKey.error} />
      <div className="grid grid-stats">
        <Card>
          <div className="stat-label">Requests</div>
          <div className="stat-value">{usage ? formatNumber(usage.totals.requests) : '—'}</div>
          <div className="stat-sub">in the last {usageRanges[range].label}</div>
        </Card>
        <Card>
          <div className="stat-label">Compute units</div>
          <div className="stat-value">{usage ? formatNumber(usage.totals.compute_units) : '—'}</div>
          <div className="stat-sub">in the last {usageRanges[range].label}</div>
        </Card>
        <Card>
          <div className="stat-label">Rate limited (429)</div>
          <div className="stat-value">{usage ? formatNumber(usage.totals.rate_limited) : '—'}</div>
          <div className="stat-sub">answers refused for a limit</div>
        </Card>
        <Card>
          <div className="stat-label">Plan limits ({session.account.plan})</div>
          <dl className="limits">
            <div>
              <dt>Requests / s</dt>
              <dd>{formatLimit(limits.rps)}</dd>
            </div>
            <div>
              <dt>Requests / day</dt>
              <dd>{formatLimit(limits.rpd)}</dd>
            </div>
            <div>
              <dt>Compute units / s</dt>
              <dd>{formatLimit(limits.cups)}</dd>
            </div>
          </dl>
          {range === '24h' && usage && limits.rpd !== null && (
            <Meter
              value={usage.totals.requests}
              max={limits.rpd}
              label={`${formatNumber(usage.totals.requests)} of ${formatNumber(limits.rpd)} requests a day`}
            />
          )}
        </Card>
      </div>
      <div className="grid grid-wide">
        {charts.map((chart) => (
          <Card key={chart.metric} title={chart.label} className={chart.metric === 'requests' ? 'span-all' : undefined}>
            {byKey.loading && !usage ? (
              <Loading />
            ) : (
              <TimeChart
                label={`${chart.label}, last ${usageRanges[range].label}`}
                points={bucketed(usage, chart.metric, span.from, span.to, bucketMs)}
                from={span.from}
                to={span.to}
                bucketMs={bucketMs}
                tone={chart.tone}
              />
            )}
          </Card>
        ))}
      </div>
      <BreakdownTable title="By key" usage={usage} loading={byKey.loading} name={(group) => keyNames.get(group) ?? group} />
      <BreakdownTable title="By method" usage={byMethod.data} loading={byMethod.loading} name={(group) => group} />
      <ErrorMessage error={byMethod.error} />
    </>
  );
}

function BreakdownTable({
  title,
  usage,
  loading,
  name,
}: {
  title: string;
  usage: Usage | undefined;
  loading: boolean;
  name: (group: string) => string;
}) {
  const rows = breakdown(usage);
  return (
    <Card title={title}>
      {loading && !usage ? (
        <Loading />
      ) : rows.length === 0 ? (
        <Empty>No requests in this range.</Empty>
      ) : (
        <TableWrap label={`Usage ${title.toLowerCase()}`}>
          <table>
            <thead>
              <tr>
                <th scope="col">{title === 'By key' ? 'Key' : 'Method'}</th>
                <th scope="col" className="num">
                  Requests
                </th>
                <th scope="col" className="num">
                  Compute units
                </th>
                <th scope="col" className="num">
                  429s
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.group}>
                  <td>
                    <code>{name(row.group) || '—'}</code>
                  </td>
                  <td className="num">{formatNumber(row.requests)}</td>
                  <td className="num">{formatNumber(row.compute_units)}</td>
                  <td className="num">{formatNumber(row.rate_limited)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </Card>
  );
}
