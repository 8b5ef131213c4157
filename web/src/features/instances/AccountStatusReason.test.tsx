import { MantineProvider } from '@mantine/core';
import { cleanup, render, screen } from '@testing-library/react';
import type { Account } from '@wa/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { formatDateTime } from '../../lib/format';
import { buildAccount } from '../../testing/factories.ts';
import { AccountStatusReason } from './AccountStatusReason.tsx';

const REASON = 'Paused: WhatsApp restricted this account from starting new chats (error 463)';
const account = buildAccount;
const show = (s: Account) =>
  render(
    <MantineProvider>
      <AccountStatusReason account={s} />
    </MantineProvider>,
  );

describe('AccountStatusReason', () => {
  afterEach(cleanup);

  it('says until when one-to-one sends wait, and that group sends go on', () => {
    const until = '2030-01-02T03:04:00.000Z';
    show(account({ statusReason: REASON, sendPaused: true, sendPausedUntil: until }));
    expect(
      screen.getByText(`${REASON} One-to-one sends wait until ${formatDateTime(until)}; group sends go on.`),
    ).toBeInTheDocument();
  });

  it('without an end time, says the pause lasts until WhatsApp lifts it or the user resumes', () => {
    show(account({ statusReason: REASON, sendPaused: true }));
    expect(
      screen.getByText(/until WhatsApp lifts the restriction or you resume; group sends go on\.$/),
    ).toBeInTheDocument();
  });

  it('shows nothing for a session that sends', () => {
    show(account({}));
    expect(screen.queryByText(/sends|Paused/)).toBeNull();
  });
});
