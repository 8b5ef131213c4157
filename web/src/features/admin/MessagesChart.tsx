import { Text } from '@mantine/core';
import { useElementSize } from '@mantine/hooks';
import { formatNumber } from '../../lib/format.ts';

type Day = { day: string; sent: number; failed: number };

const HEIGHT = 120;
/** Room on the left for the axis' numbers. */
const AXIS = 36;
/** Before the box is measured (and in tests): 18 px a day. */
const FALLBACK_WIDTH = 30 * 18 + AXIS;

/** Sent (teal) and failed (red, stacked on top) messages per day, as bars; each bar names its day. */
export function MessagesChart({ days }: { days: Day[] }) {
  const max = Math.max(1, ...days.map((d) => d.sent + d.failed));
  const total = days.reduce((n, d) => n + d.sent, 0);
  const failed = days.reduce((n, d) => n + d.failed, 0);
  // The bars share the card's whole width (30 fixed bars filled 45 % of it).
  const { ref, width: measured } = useElementSize();
  const width = Math.max(AXIS + days.length * 4, measured || FALLBACK_WIDTH);
  const step = (width - AXIS) / Math.max(1, days.length);
  const BAR = step * 0.78;
  const label = `Messages per day, last ${days.length} days: ${formatNumber(total)} sent, ${formatNumber(failed)} failed`;
  return (
    <div ref={ref}>
      <svg
        role="img"
        aria-label={label}
        width={width}
        height={HEIGHT + 18}
        style={{ display: 'block', maxWidth: '100%' }}
        viewBox={`0 0 ${width} ${HEIGHT + 18}`}
      >
        {/* The axis: 0, half and the highest day, with guide lines. */}
        {[0, 0.5, 1].map((f) => (
          <g key={f} aria-hidden>
            <line
              x1={AXIS}
              x2={width}
              y1={HEIGHT - f * HEIGHT + 0.5}
              y2={HEIGHT - f * HEIGHT + 0.5}
              stroke="var(--mantine-color-gray-3)"
            />
            <text x={AXIS - 6} y={HEIGHT - f * HEIGHT + 4} fontSize={10} textAnchor="end" fill="currentColor">
              {formatNumber(Math.round(f * max))}
            </text>
          </g>
        ))}
        {days.map((d, i) => {
          const x = AXIS + i * step;
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
