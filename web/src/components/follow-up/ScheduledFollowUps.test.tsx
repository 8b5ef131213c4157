import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import type { SegmentsResponse } from '@wa/contract';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatDateTime } from '../../lib/format.ts';
import { ScheduledFollowUps } from './ScheduledFollowUps.tsx';

const DUE = '2026-12-03T04:30:00.000Z';
const segments = (state: 'waiting' | 'cancelled'): SegmentsResponse => ({
  success: true,
  segments: {
    not_delivered: 0,
    delivered_not_read: 0,
    read_not_replied: 1,
    replied: 0,
    failed_retryable: 0,
    not_replied: 1,
  },
  scheduled: [
    { id: 'f1', segment: 'not_replied', dueAt: DUE, state, jobId: null, error: null },
    { id: 'f0', segment: 'replied', dueAt: DUE, state: 'created', jobId: 'f0', error: null },
  ],
});

let fetchMock: ReturnType<typeof vi.fn>;
let state: 'waiting' | 'cancelled';
beforeEach(() => {
  window.sessionStorage.setItem('token', 't');
  state = 'waiting';
  fetchMock = vi.fn((url: string, init?: RequestInit) => {
    if (init?.method === 'POST') {
      state = 'cancelled';
      return Promise.resolve(new Response(JSON.stringify({ success: true, message: 'Follow-up cancelled' })));
    }
    return Promise.resolve(new Response(JSON.stringify(segments(state))));
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.sessionStorage.clear();
});

const show = () =>
  render(
    <MantineProvider>
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <ScheduledFollowUps jobId="job-1" />
      </QueryClientProvider>
    </MantineProvider>,
  );

describe('Job Details: the scheduled follow-ups', () => {
  it('a waiting follow-up is cancelled after the confirmation; one already sent has no Cancel', async () => {
    show();
    const list = await screen.findByRole('group', { name: 'Scheduled follow-ups' });
    expect(list).toHaveTextContent(`Follow-up to Not replied: waits until ${formatDateTime(DUE)}`);
    expect(list).toHaveTextContent(`Follow-up to Replied: sent as a job ${formatDateTime(DUE)}`);
    const cancel = within(list).getAllByRole('button', { name: /^Cancel/ });
    expect(cancel).toHaveLength(1);
    expect(cancel[0]).toHaveAccessibleName(`Cancel the follow-up due ${formatDateTime(DUE)}`);

    // Asked first: 'Keep it' changes nothing.
    fireEvent.click(cancel[0]!);
    const dialog = await screen.findByRole('dialog', { name: 'Cancel follow-up' });
    expect(dialog).toHaveTextContent('Nothing has been charged for it.');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Keep it' }));
    expect(fetchMock.mock.calls.filter(([, init]) => init?.method === 'POST')).toHaveLength(0);

    fireEvent.click(within(list).getByRole('button', { name: /^Cancel the follow-up/ }));
    fireEvent.click(
      within(await screen.findByRole('dialog', { name: 'Cancel follow-up' })).getByRole('button', {
        name: 'Cancel follow-up',
      }),
    );
    expect(await within(list).findByRole('status')).toHaveTextContent('Follow-up cancelled');
    const posts = fetchMock.mock.calls.filter(([, init]) => init?.method === 'POST');
    expect(posts.map(([url]) => url)).toEqual(['/api/message-jobs/job-1/follow-ups/f1/cancel']);
    expect(
      await within(list).findByText(`Follow-up to Not replied: cancelled, was due ${formatDateTime(DUE)}`),
    ).toBeInTheDocument();
    expect(within(list).queryByRole('button', { name: /^Cancel/ })).not.toBeInTheDocument();
  });

  it("the server's refusal shows in the confirmation", async () => {
    fetchMock.mockImplementation((_url: string, init?: RequestInit) =>
      Promise.resolve(
        init?.method === 'POST'
          ? new Response(
              JSON.stringify({
                success: false,
                message: 'This follow-up is being sent now: it can no longer be cancelled',
              }),
              { status: 409 },
            )
          : new Response(JSON.stringify(segments('waiting'))),
      ),
    );
    show();
    fireEvent.click(await screen.findByRole('button', { name: /^Cancel the follow-up/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Cancel follow-up' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel follow-up' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'This follow-up is being sent now: it can no longer be cancelled',
    );
  });
});
