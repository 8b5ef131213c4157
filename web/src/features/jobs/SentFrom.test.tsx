import { MantineProvider } from '@mantine/core';
import { cleanup, render, screen, within } from '@testing-library/react';
import type { JobDetail } from '@wa/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RecipientsTable } from './JobDetailsModal.tsx';

afterEach(cleanup);

const saved = ['clientHeight', 'clientWidth'].map(
  (k) => [k, Object.getOwnPropertyDescriptor(HTMLElement.prototype, k)] as const,
);
beforeAll(() => {
  // jsdom lays nothing out: give the scroll box a size.
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 600 });
  Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 1000 });
});
afterAll(() => {
  for (const [k, d] of saved) if (d) Object.defineProperty(HTMLElement.prototype, k, d);
});

const detail = (chatId: string, sessionId: string): JobDetail => ({
  chatName: null,
  chatId,
  status: 'sent',
  sentAt: new Date(2026, 0, 1).toISOString(),
  deliveredAt: null,
  readAt: null,
  error: null,
  sentTo: null,
  sessionId,
});

describe('Job Details: the account that sent each message', () => {
  it('shows a Sent From column with the account’s number for a job spread over accounts', () => {
    render(
      <MantineProvider>
        <RecipientsTable
          groups={false}
          showAccount
          details={[
            detail('919812345601@s.whatsapp.net', '919800000001_aa'),
            detail('919812345602@s.whatsapp.net', '919800000002_bb'),
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
          details={[detail('919812345601@s.whatsapp.net', '919800000001_aa')]}
        />
      </MantineProvider>,
    );
    expect(screen.queryByRole('columnheader', { name: 'Sent From' })).toBeNull();
  });
});
