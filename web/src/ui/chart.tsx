import { useEffect, useRef, useState } from 'react';
import { formatCompact, formatNumber } from './format.ts';

export interface ChartPoint {
  t: number;
  value: number;
}

const height = 200;
const pad = { top: 12, right: 12, bottom: 26, left: 48 };

function niceMax(value: number): number {
  // At least 4: counts get whole-number ticks.
  if (value <= 4) return 4;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

function timeLabel(t: number, spanMs: number): string {
  const date = new Date(t);
  if (spanMs > 2 * 86_400_000) return date.toLocaleDateString('en-US', { month: 'short', day: 'numeric' });
  return date.toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit', hour12: false });
}

/**
 * A time series as a small SVG area chart: `points` over [from, to], bars of `bucketMs`. Each bucket
 * has a hover title; the whole chart has a text summary for screen readers.
 */
export function TimeChart({
  label,
  points,
  from: rawFrom,
  to: rawTo,
  bucketMs,
  tone = 'primary',
}: {
  label: string;
  points: ChartPoint[];
  from: number;
  to: number;
  bucketMs: number;
  tone?: 'primary' | 'accent' | 'danger';
}) {
  // Drawn at the width it is shown at, so the axis text keeps its size.
  const figure = useRef<HTMLElement>(null);
  const [width, setWidth] = useState(640);
  useEffect(() => {
    const element = figure.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => {
      const measured = Math.round(entry?.contentRect.width ?? 0);
      if (measured > 0) setWidth(measured);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  // Whole buckets: the first and last bars sit inside the axes.
  const from = Math.floor(rawFrom / bucketMs) * bucketMs;
  const to = Math.max(from + bucketMs, Math.ceil(rawTo / bucketMs) * bucketMs);
  const span = to - from;
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const max = niceMax(Math.max(0, ...points.map((point) => point.value)));
  const x = (t: number) => pad.left + ((t - from) / span) * plotW;
  const y = (value: number) => pad.top + plotH - (value / max) * plotH;
  const barW = Math.max(1, (bucketMs / span) * plotW - 1);
  const total = points.reduce((sum, point) => sum + point.value, 0);
  const peak = points.reduce((best, point) => Math.max(best, point.value), 0);
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const timeTicks = (width < 420 ? [0, 0.5, 1] : [0, 0.25, 0.5, 0.75, 1]).map((share) => from + share * span);

  return (
    <figure className={`chart chart-${tone}`} ref={figure}>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`${label}: ${formatNumber(total)} in total, at most ${formatNumber(peak)} in one interval`}
      >
        {ticks.map((share) => (
          <g key={share}>
            <line className="chart-grid" x1={pad.left} x2={width - pad.right} y1={y(share * max)} y2={y(share * max)} />
            <text className="chart-axis" x={pad.left - 6} y={y(share * max) + 4} textAnchor="end">
              {formatCompact(share * max)}
            </text>
          </g>
        ))}
        {timeTicks.map((t, index) => (
          <text
            key={t}
            className="chart-axis"
            x={x(t)}
            y={height - 8}
            textAnchor={index === 0 ? 'start' : index === timeTicks.length - 1 ? 'end' : 'middle'}
          >
            {timeLabel(t, span)}
          </text>
        ))}
        {points.map((point) =>
          point.value > 0 ? (
            <rect
              key={point.t}
              className="chart-bar"
              x={x(point.t)}
              y={y(point.value)}
              width={barW}
              height={Math.max(1, pad.top + plotH - y(point.value))}
              rx={Math.min(2, barW / 2)}
            >
              <title>{`${new Date(point.t).toLocaleString('en-US')}: ${formatNumber(point.value)}`}</title>
            </rect>
          ) : null,
        )}
        <line className="chart-baseline" x1={pad.left} x2={width - pad.right} y1={pad.top + plotH} y2={pad.top + plotH} />
      </svg>
    </figure>
  );
}

/** A horizontal share bar: usage against a limit (red near the limit), or progress (green). */
export function Meter({ value, max, label, progress }: { value: number; max: number | null; label: string; progress?: boolean }) {
  const share = max ? Math.min(1, value / max) : 0;
  return (
    <div className="meter">
      <svg viewBox="0 0 100 6" preserveAspectRatio="none" role="img" aria-label={label}>
        <rect className="meter-track" x="0" y="0" width="100" height="6" rx="3" />
        <rect
          className={`meter-fill${progress ? ' meter-good' : share > 0.9 ? ' meter-hot' : ''}`}
          x="0"
          y="0"
          width={share * 100}
          height="6"
          rx="3"
        />
      </svg>
    </div>
  );
}
