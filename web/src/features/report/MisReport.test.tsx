import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { JobsResponse, MessageJob } from '@wa/contract';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REPORT_POLL_MS } from './api/get-report-jobs.ts';
import { MisReport } from './MisReport.tsx';

function renderReport() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <MisReport userId="user-1" />
      </QueryClientProvider>
    </MantineProvider>,
  );
}

let fetchMock: ReturnType<typeof vi.fn>;
const urls = () => fetchMock.mock.calls.map((c) => new URL(String(c[0]), 'http://x'));

beforeEach(() => {
  window.sessionStorage.setItem('token', 't');
  fetchMock = vi.fn(() =>
    Promise.resolve(
      new Response(JSON.stringify({ success: true, jobs: [], message: 'No message jobs found', total: 0 })),
    ),
  );
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.sessionStorage.clear();
});

const job = (i: number): MessageJob => ({
  id: `job${String(i).padStart(7, '0')}`,
  sessionId: '919800000001_abc',
  audience: 'individuals',
  messageType: 'text',
  isScheduled: false,
  scheduledTime: null,
  status: 'completed',
  statusReason: null,
  progress: { completed: 10, total: 10, percentComplete: 100 },
  results: { success: 10, failed: 0, delivered: 0, read: 0 },
  delivery: { delivered: 0, read: 0, replied: 0, undelivered: 0 },
  createdAt: new Date(2026, 10, 20, 10, 0, 0).toISOString(),
  elapsedTimeMs: 1000,
  messageContent: `Offer ${i}`,
  mediaMime: null,
  fileName: null,
});

const page = (jobs: MessageJob[], total: number): JobsResponse => ({
  success: true,
  jobs,
  message: 'Jobs fetched',
  total,
  summary: {
    jobs: total,
    byStatus: { pending: 0, scheduled: 0, processing: 0, paused: 0, completed: total, failed: 0 },
    recipients: total * 10,
    sent: total * 10,
    failed: 0,
  },
  nextCursor: jobs.length < total ? 'next' : null,
});

describe('MisReport', () => {
  it('asks for the first page once, then every 15 s for the first page only', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      fetchMock.mockImplementation(() =>
        Promise.resolve(new Response(JSON.stringify(page([job(1), job(2)], 250)))),
      );
      renderReport();
      // (jsdom lays nothing out, so the virtual table draws no rows: the count says what was read.)
      expect(await screen.findByText('250 jobs (2 shown)')).toBeInTheDocument();
      // Long enough for a second read of the same page to have been asked for.
      await act(() => vi.advanceTimersByTimeAsync(1_000));
      expect(urls().map((u) => u.search)).toEqual(['?limit=100']);

      await act(() => vi.advanceTimersByTimeAsync(REPORT_POLL_MS));
      expect(urls().map((u) => u.search)).toEqual(['?limit=100', '?limit=100']);

      // A new search: its first page is asked for once too.
      fireEvent.change(screen.getByLabelText('Search jobs'), { target: { value: 'Offer' } });
      await act(() => vi.advanceTimersByTimeAsync(1_000));
      expect(urls().map((u) => u.search)).toEqual(['?limit=100', '?limit=100', '?limit=100&q=Offer']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('takes From and To as dd/mm/yyyy, asks for their whole days in local time, and Clear drops them', async () => {
    renderReport();
    expect(await screen.findByText('No jobs found')).toBeInTheDocument();
    expect(urls()[0]!.pathname).toBe('/api/message-jobs/user-1');
    expect(urls()[0]!.searchParams.get('from')).toBeNull();

    fireEvent.change(screen.getByLabelText('From'), { target: { value: '05/03/2026' } });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '07/03/2026' } });
    await waitFor(() => expect(urls().at(-1)!.searchParams.get('to')).not.toBeNull());
    expect((screen.getByLabelText('From') as HTMLInputElement).value).toBe('05/03/2026');
    const last = urls().at(-1)!.searchParams;
    expect(last.get('from')).toBe(new Date(2026, 2, 5, 0, 0, 0, 0).toISOString());
    expect(last.get('to')).toBe(new Date(2026, 2, 7, 23, 59, 59, 999).toISOString());

    fireEvent.blur(screen.getByLabelText('From'));
    fireEvent.blur(screen.getByLabelText('To'));
    fireEvent.click(screen.getByRole('button', { name: 'Clear' }));
    expect((screen.getByLabelText('From') as HTMLInputElement).value).toBe('');
    expect((screen.getByLabelText('To') as HTMLInputElement).value).toBe('');
  }, 20_000); // typing into two date inputs draws their calendars: slow in jsdom on a loaded machine

  it("shows the server's message when the jobs cannot be fetched", async () => {
    fetchMock.mockImplementation(() =>
      Promise.resolve(new Response(JSON.stringify({ message: 'User not found' }), { status: 404 })),
    );
    renderReport();
    expect(await screen.findByText('User not found')).toBeInTheDocument();
  });

  it("says 'Error fetching jobs: ...' when the server cannot be reached", async () => {
    fetchMock.mockImplementation(() => Promise.reject(new TypeError('Failed to fetch')));
    renderReport();
    expect(await screen.findByText('Error fetching jobs: Failed to fetch')).toBeInTheDocument();
  });
});
