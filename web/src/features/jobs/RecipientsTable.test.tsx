import { MantineProvider } from '@mantine/core';
import { cleanup, render, screen, within } from '@testing-library/react';
import type { JobDetail } from '@wa/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { giveBoxesASize } from '../../testing/layout.ts';
import { RecipientsTable, sentToNumber } from './JobDetailsModal.tsx';

afterEach(cleanup);

giveBoxesASize();

const detail = (chatId: string, sentTo: string | null, accountId?: string): JobDetail => ({
  chatName: null,
  chatId,
  status: 'sent',
  sentAt: new Date(2026, 0, 1).toISOString(),
  deliveredAt: null,
  readAt: null,
  error: null,
  sentTo,
  ...(accountId ? { sessionId: accountId } : {}),
});

describe('Job Details: the JID a message went to', () => {
  it('shows it under the number only where WhatsApp named another one', () => {
    render(
      <MantineProvider>
        <RecipientsTable
          groups={false}
          details={[
            // Brazil: the 9th digit WhatsApp drops for this number.
            detail('5511987654321', '551187654321@s.whatsapp.net'),
            detail('919800000001', '919800000001@s.whatsapp.net'),
            detail('919800000002', null),
          ]}
        />
      </MantineProvider>,
    );
    const rows = within(screen.getByRole('table', { name: 'Recipients' }))
      .getAllByRole('row')
      .slice(1);
    expect(rows.map((r) => r.querySelector('td')?.textContent)).toEqual([
      '5511987654321Sent to 551187654321 (the number WhatsApp gave)',
      '919800000001',
      '919800000002',
    ]);
  });

  it('compares digits, ignoring the device and the server', () => {
    expect(
      sentToNumber({ chatId: '919800000001@s.whatsapp.net', sentTo: '919800000001:0@s.whatsapp.net' }),
    ).toBeNull();
    expect(sentToNumber({ chatId: '5215512345678', sentTo: '5215512345678@s.whatsapp.net' })).toBeNull();
    expect(sentToNumber({ chatId: '525512345678', sentTo: '5215512345678@s.whatsapp.net' })).toBe(
      '5215512345678',
    );
    // A message that went to the person's LID shows no raw id.
    expect(sentToNumber({ chatId: '919800000001@s.whatsapp.net', sentTo: '123456789012345@lid' })).toBeNull();
  });
});

describe('Job Details: the account that sent each message', () => {
  it('shows a Sent From column with the account’s number for a job spread over accounts', () => {
    render(
      <MantineProvider>
        <RecipientsTable
          groups={false}
          showAccount
          details={[
            detail('919812345601@s.whatsapp.net', null, '919800000001_aa'),
            detail('919812345602@s.whatsapp.net', null, '919800000002_bb'),
          ]}
        />
      </MantineProvider>,
    );
    const table = screen.getByRole('table', { name: 'Recipients' });
    expect(within(table).getByRole('columnheader', { name: 'Sent From' })).toBeInTheDocument();
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getAllByRole('cell').at(-1)!.textContent)).toEqual([
      '919800000001',
      '919800000002',
    ]);
  });

  it('has no such column for a job of one account', () => {
    render(
      <MantineProvider>
        <RecipientsTable
          groups={false}
          details={[detail('919812345601@s.whatsapp.net', null, '919800000001_aa')]}
        />
      </MantineProvider>,
    );
    expect(screen.queryByRole('columnheader', { name: 'Sent From' })).toBeNull();
  });
});
