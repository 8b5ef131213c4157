import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatDateTime } from '../../lib/format.ts';
import { FollowUpLater } from './FollowUpLater.tsx';

let fetchMock: ReturnType<typeof vi.fn>;
const client = () => new QueryClient({ defaultOptions: { queries: { retry: false } } });
const wrap = (c: QueryClient, node: ReactNode) => (
  <MantineProvider>
    <QueryClientProvider client={c}>{node}</QueryClientProvider>
  </MantineProvider>
);

beforeEach(() => {
  window.sessionStorage.setItem('token', 't');
  fetchMock = vi.fn(() =>
    Promise.resolve(
      new Response(
        JSON.stringify({
          success: true,
          jobId: 'later',
          recipients: 0,
          scheduledAt: '2026-12-03T04:30:00.000Z',
        }),
      ),
    ),
  );
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.sessionStorage.clear();
});

describe("Bulk Messaging: 'Follow up after N days to those who have not replied'", () => {
  it('schedules nothing while it is off', () => {
    const c = client();
    const { rerender } = render(wrap(c, <FollowUpLater jobId={null} accountId="s1" />));
    rerender(wrap(c, <FollowUpLater jobId="job-1" accountId="s1" />));
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("once the send is accepted, asks for its not_replied segment N days after the job is sent, with the follow-up's own message, once", async () => {
    const c = client();
    const { rerender } = render(wrap(c, <FollowUpLater jobId={null} accountId="s1" />));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Follow up after' }));
    fireEvent.change(screen.getByRole('textbox', { name: 'Days before the follow-up' }), {
      target: { value: '2' },
    });
    const message = screen.getByRole('group', { name: 'Follow-up message' });
    fireEvent.change(within(message).getByRole('textbox', { name: 'Message' }), {
      target: { value: 'Still interested?' },
    });
    rerender(wrap(c, <FollowUpLater jobId="job-1" accountId="s1" />));
    // The time the server set (from the job's own scheduled time), not one counted here.
    expect(await screen.findByRole('status')).toHaveTextContent(
      `Follow-up scheduled for ${formatDateTime('2026-12-03T04:30:00.000Z')}`,
    );
    rerender(wrap(c, <FollowUpLater jobId="job-1" accountId="s1" />));
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/message-jobs/job-1/follow-up');
    const body = JSON.parse(String(init.body));
    expect(JSON.parse(String(init.body))).toEqual({
      segment: 'not_replied',
      sessionId: 's1',
      content: 'Still interested?',
      afterDays: 2,
    });
  });

  it('a follow-up may be a poll, written as Bulk Messaging writes one', async () => {
    const c = client();
    const { rerender } = render(wrap(c, <FollowUpLater jobId={null} accountId="s1" />));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Follow up after' }));
    const message = screen.getByRole('group', { name: 'Follow-up message' });
    fireEvent.click(within(message).getByRole('tab', { name: 'Poll' }));
    fireEvent.change(within(message).getByRole('textbox', { name: 'Poll question' }), {
      target: { value: 'Did it arrive?' },
    });
    fireEvent.change(within(message).getByRole('textbox', { name: 'Option 1' }), {
      target: { value: 'Yes' },
    });
    fireEvent.change(within(message).getByRole('textbox', { name: 'Option 2' }), { target: { value: 'No' } });
    rerender(wrap(c, <FollowUpLater jobId="job-2" accountId="s1" />));
    expect(await screen.findByRole('status')).toHaveTextContent(/^Follow-up scheduled for /);
    expect(JSON.parse(String(fetchMock.mock.calls[0]![1].body))).toEqual({
      segment: 'not_replied',
      sessionId: 's1',
      type: 'poll',
      content: {
        pollName: 'Did it arrive?',
        pollOptions: ['Yes', 'No'],
        options: { allowMultipleAnswers: false },
      },
      afterDays: 3,
    });
  });
});
