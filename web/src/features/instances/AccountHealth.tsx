import { Badge, Text, Tooltip } from '@mantine/core';
import type { HealthState, SessionHealthResponse } from '@wa/contract';
import { useSessionHealth } from './api/get-health.ts';

const STATE: Record<HealthState, { label: string; color: string }> = {
  good: { label: 'Good', color: 'green' },
  watch: { label: 'Watch', color: 'yellow' },
  paused: { label: 'Paused', color: 'red' },
};

/** The signals behind the score, in a line (the badge's tooltip). */
export function signalsText(h: SessionHealthResponse): string {
  const s = h.signals;
  return [
    `${s.sent} sent`,
    `${s.failed} failed`,
    `${s.undelivered} undelivered`,
    `${s.notOnWhatsApp} of ${s.lookups} not on WhatsApp`,
    `${s.restrictions} restrictions`,
    `${s.disconnects} disconnects`,
    `${s.stops} STOP`,
    `${s.replies} replies`,
    `${s.newContacts} new contacts`,
  ].join(' · ');
}

/**
 * The account's health: its score and state, and why when it is not good. A pause's
 * reason is already shown by the session's status (SessionStatusReason), so it is not repeated.
 */
export function AccountHealth({ sessionId }: { sessionId: string }) {
  const health = useSessionHealth(sessionId);
  const h = health.data;
  if (!h) return null;
  const state = STATE[h.state];
  return (
    <>
      <Tooltip label={`Since ${new Date(h.since).toLocaleString()}: ${signalsText(h)}`} multiline maw={320}>
        <Badge
          mt={4}
          color={state.color}
          variant="light"
          aria-label={`Account health ${h.score} of 100: ${state.label}`}
        >
          Health {h.score} · {state.label}
        </Badge>
      </Tooltip>
      {h.state === 'watch' && h.reason && (
        <Text size="xs" c="dimmed" mt={2} maw={260}>
          {h.reason}. Sending is slowed: longer pauses, half the daily caps.
        </Text>
      )}
    </>
  );
}
