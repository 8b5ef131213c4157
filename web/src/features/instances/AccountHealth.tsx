import { Badge, Text } from '@mantine/core';
import type { AccountHealthResponse, HealthState } from '@wa/contract';
import { formatDateTime } from '../../lib/format.ts';
import { useAccountHealth } from './api/get-health.ts';

const STATE: Record<HealthState, { label: string; color: string }> = {
  good: { label: 'Good', color: 'green' },
  watch: { label: 'Watch', color: 'yellow' },
  paused: { label: 'Paused', color: 'red' },
};

/** The signals behind the score, in a line: those that happened (all of them when none did). */
export function signalsText(h: AccountHealthResponse): string {
  const s = h.signals;
  const all: [number, string][] = [
    [s.sent, `${s.sent} sent`],
    [s.failed, `${s.failed} failed`],
    [s.undelivered, `${s.undelivered} undelivered`],
    [s.notOnWhatsApp, `${s.notOnWhatsApp} of ${s.lookups} not on WhatsApp`],
    [s.restrictions, `${s.restrictions} restrictions`],
    [s.disconnects, `${s.disconnects} disconnects`],
    [s.stops, `${s.stops} STOP`],
    [s.replies, `${s.replies} replies`],
    [s.newContacts, `${s.newContacts} new contacts`],
  ];
  const seen = all.filter(([n]) => n > 0);
  return seen.length ? seen.map(([, t]) => t).join(' · ') : 'nothing sent or received yet';
}

/**
 * The account's health: its score and state, and why, in words under the badge (a
 * tooltip is out of reach on a phone and for the keyboard). A pause's reason is already shown by
 * the account's status (AccountStatusReason), so it is not repeated.
 */
export function AccountHealth({ accountId }: { accountId: string }) {
  const health = useAccountHealth(accountId);
  const h = health.data;
  if (!h) return null;
  const state = STATE[h.state];
  return (
    <>
      <Badge
        mt={4}
        color={state.color}
        variant="light"
        aria-label={`Account health ${h.score} of 100: ${state.label}`}
      >
        Health {h.score} · {state.label}
      </Badge>
      {h.state === 'watch' && h.reason && (
        <Text size="xs" c="dimmed" mt={2} maw={260}>
          {h.reason}. Sending is slowed: longer pauses, half the daily caps.
        </Text>
      )}
      <Text size="xs" c="dimmed" mt={2} maw={260}>
        Since {formatDateTime(h.since)}: {signalsText(h)}
      </Text>
    </>
  );
}
