import { MantineProvider } from '@mantine/core';
import { cleanup, render, screen, within } from '@testing-library/react';
import type { JobDetail } from '@wa/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RecipientsTable, sentToNumber } from './JobDetailsModal.tsx';

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

const detail = (chatId: string, sentTo: string | null): JobDetail => ({
  chatName: null,
  chatId,
  status: 'sent',
  sentAt: new Date(2026, 0, 1).toISOString(),
  deliveredAt: null,
  readAt: null,
  error: null,
  sentTo,
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
  });
});
