import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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
    Promise.resolve(new Response(JSON.stringify({ success: true, jobId: 'later', recipients: 0 }))),
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
    const { rerender } = render(wrap(c, <FollowUpLater jobId={null} sessionId="s1" />));
    rerender(wrap(c, <FollowUpLater jobId="job-1" sessionId="s1" />));
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("once the send is accepted, schedules its not_replied segment N days later with the follow-up's own message, once", async () => {
    const c = client();
    const { rerender } = render(wrap(c, <FollowUpLater jobId={null} sessionId="s1" />));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Follow up after' }));
    fireEvent.change(screen.getByRole('textbox', { name: 'Days before the follow-up' }), {
      target: { value: '2' },
    });
    fireEvent.change(screen.getByRole('textbox', { name: 'Follow-up message' }), {
      target: { value: 'Still interested?' },
    });
    const before = Date.now();
    rerender(wrap(c, <FollowUpLater jobId="job-1" sessionId="s1" />));
    expect(await screen.findByRole('status')).toHaveTextContent(/^Follow-up scheduled for /);
    rerender(wrap(c, <FollowUpLater jobId="job-1" sessionId="s1" />));
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/message-jobs/job-1/follow-up');
    const body = JSON.parse(String(init.body));
    expect(body).toEqual({
      segment: 'not_replied',
      sessionId: 's1',
      type: 'string',
      content: 'Still interested?',
      scheduleTime: expect.any(String),
    });
    const at = new Date(body.scheduleTime).getTime() - before;
    expect(at).toBeGreaterThanOrEqual(2 * 86_400_000);
    expect(at).toBeLessThan(2 * 86_400_000 + 60_000);
  });
});
