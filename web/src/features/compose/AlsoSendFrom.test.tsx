import { MantineProvider } from '@mantine/core';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { Account } from '@wa/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { AlsoSendFrom, sharingAccountIds } from './AlsoSendFrom.tsx';

afterEach(cleanup);

const account = (accountId: string, name: string, status: Account['status'] = 'CONNECTED'): Account =>
  ({
    id: accountId,
    sessionId: accountId,
    phoneNumber: accountId.split('_')[0]!,
    sessionName: name,
    status,
    statusReason: null,
    sendPaused: false,
    sendPausedUntil: null,
  }) as Account;

const A = account('919800000001_aa', 'Shop');
const B = account('919800000002_bb', 'Office');
const C = account('919800000003_cc', 'Old phone', 'DISCONNECTED');

describe("Bulk Messaging: 'Also send from'", () => {
  it('offers the other connected accounts only, and nothing with one account', async () => {
    const { rerender } = render(
      <MantineProvider>
        <AlsoSendFrom accounts={[A]} current={A.sessionId} value={[]} onChange={() => {}} />
      </MantineProvider>,
    );
    expect(screen.queryByLabelText('Also send from')).toBeNull();

    rerender(
      <MantineProvider>
        <AlsoSendFrom accounts={[A, B, C]} current={A.sessionId} value={[]} onChange={() => {}} />
      </MantineProvider>,
    );
    const input = screen
      .getAllByLabelText('Also send from')
      .find((el) => el instanceof HTMLInputElement && el.type !== 'hidden')!;
    fireEvent.click(input);
    const options = (await screen.findAllByRole('option')).map((o) => o.textContent);
    expect(options).toEqual(['Office (919800000002)']);
  });

  it('sends the picked account first, then the chosen connected ones', () => {
    expect(sharingAccountIds(A.sessionId, [], [A, B])).toBeUndefined();
    expect(sharingAccountIds(A.sessionId, [B.sessionId], [A, B, C])).toEqual([A.sessionId, B.sessionId]);
    // One that went down, or the picked one itself, is left out.
    expect(sharingAccountIds(A.sessionId, [C.sessionId, A.sessionId], [A, B, C])).toBeUndefined();
  });
});
