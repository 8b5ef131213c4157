import { Text } from '@mantine/core';
import { formatNumber } from '../../lib/format.ts';

type Day = { day: string; sent: number; failed: number };

const HEIGHT = 120;
const BAR = 14;
const GAP = 4;

/** Sent (teal) and failed (red, stacked on top) messages per day, as bars; each bar names its day. */
export function MessagesChart({ days }: { days: Day[] }) {
  const max = Math.max(1, ...days.map((d) => d.sent + d.failed));
  const total = days.reduce((n, d) => n + d.sent, 0);
  const failed = days.reduce((n, d) => n + d.failed, 0);
  const width = days.length * (BAR + GAP);
  const label = `Messages per day, last ${days.length} days: ${formatNumber(total)} sent, ${formatNumber(failed)} failed`;
  return (
    <div>
      {/* Narrower than its 30 days (a phone), the chart shrinks with its box instead of scrolling. */}
      <svg
        role="img"
        aria-label={label}
        width={width}
        height={HEIGHT + 18}
        style={{ maxWidth: '100%', height: 'auto' }}
        viewBox={`0 0 ${width} ${HEIGHT + 18}`}
      >
        {days.map((d, i) => {
          const x = i * (BAR + GAP);
          const sentH = (d.sent / max) * HEIGHT;
          const failedH = (d.failed / max) * HEIGHT;
          return (
            <g key={d.day}>
              <title>{`${d.day}: ${formatNumber(d.sent)} sent, ${formatNumber(d.failed)} failed`}</title>
              <rect x={x} y={HEIGHT - sentH} width={BAR} height={sentH} fill="var(--mantine-color-teal-6)" />
              <rect
                x={x}
                y={HEIGHT - sentH - failedH}
                width={BAR}
                height={failedH}
                fill="var(--mantine-color-red-6)"
              />
              {i % 5 === 4 && (
                <text x={x + BAR / 2} y={HEIGHT + 14} fontSize={10} textAnchor="middle" fill="currentColor">
                  {d.day.slice(8)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <Text size="xs" c="dimmed">
        {label} (UTC days)
      </Text>
    </div>
  );
}
