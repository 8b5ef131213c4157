import { MantineProvider } from '@mantine/core';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import type { MessageJob } from '@wa/contract';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildJob } from '../../testing/factories.ts';
import { giveBoxesASize } from '../../testing/layout.ts';
import { JobsTable } from './JobsTable.tsx';

afterEach(cleanup);

giveBoxesASize();

const job = (i: number, over: Partial<MessageJob> = {}): MessageJob =>
  buildJob({
    id: `job-${i}`,
    results: { success: 3, failed: 0, delivered: 0, read: 0 },
    createdAt: new Date(2026, 0, 1).toISOString(),
    elapsedTimeMs: 1000,
    messageContent: 'Hi',
    ...over,
  });

function renderTable(
  jobs: MessageJob[],
  handlers = { onView: vi.fn(), onRetry: vi.fn(), onDelete: vi.fn(), onPause: vi.fn(), onResume: vi.fn() },
  retryable: Record<string, number> = {},
) {
  render(
    <MantineProvider>
      <JobsTable jobs={jobs} retryingId={null} controllingId={null} retryable={retryable} {...handlers} />
    </MantineProvider>,
  );
  return handlers;
}

describe('JobsTable', () => {
  it('shows the columns of a job, Partly sent for a failed job that sent some, and Retry Failed only for failures a retry may fix', () => {
    const handlers = renderTable(
      [
        job(1, {
          status: 'failed',
          isScheduled: true,
          messageType: 'poll',
          progress: { completed: 3, total: 3, percentComplete: 100 },
          results: { success: 2, failed: 1, delivered: 0, read: 0 },
        }),
        job(2),
        job(3, {
          status: 'failed',
          progress: { completed: 1, total: 1, percentComplete: 100 },
          results: { success: 0, failed: 1, delivered: 0, read: 0 },
        }),
      ],
      undefined,
      { 'job-1': 1, 'job-3': 0 },
    );
    const first = screen.getByRole('row', { name: /job-1/ });
    expect(within(first).getByText('Partly sent')).toBeInTheDocument();
    expect(within(first).getByText('2 of 3 sent')).toBeInTheDocument();
    // Every failure of job 3 is one a retry cannot fix ('Not on WhatsApp'): no Retry, and FAILED.
    const third = screen.getByRole('row', { name: /job-3/ });
    expect(within(third).getByText('failed')).toBeInTheDocument();
    expect(within(third).queryByRole('button', { name: 'Retry Failed' })).toBeNull();
    expect(within(first).getByText('919800000001')).toBeInTheDocument();
    expect(within(first).getByText('Scheduled poll')).toBeInTheDocument();
    // Two of three sent: the Progress column says so beside 'Partly sent'.
    expect(within(first).getByText('2 / 3 (67%)')).toBeInTheDocument();
    expect(within(first).getByText('Failed: 1')).toBeInTheDocument();
    fireEvent.click(within(first).getByRole('button', { name: 'Retry Failed' }));
    expect(handlers.onRetry).toHaveBeenCalledWith(expect.objectContaining({ id: 'job-1' }));
    const second = screen.getByRole('row', { name: /job-2/ });
    expect(within(second).queryByRole('button', { name: 'Retry Failed' })).toBeNull();
    fireEvent.click(within(second).getByRole('button', { name: 'Delete' }));
    expect(handlers.onDelete).toHaveBeenCalledWith(expect.objectContaining({ id: 'job-2' }));
  });

  it('offers Pause for a running job, and Resume with the reason for a paused one', () => {
    const handlers = renderTable([
      job(1, { status: 'processing', statusReason: 'Waiting: quiet hours until 09:00' }),
      job(2, { status: 'paused', statusReason: 'Paused: 12 of the last 20 messages failed' }),
    ]);
    const running = screen.getByRole('row', { name: /job-1/ });
    expect(within(running).getByText('waiting')).toBeInTheDocument();
    expect(within(running).queryByText('processing')).toBeNull();
    expect(within(running).getByText('Waiting: quiet hours until 09:00')).toBeInTheDocument();
    expect(within(running).queryByRole('button', { name: 'Resume' })).toBeNull();
    fireEvent.click(within(running).getByRole('button', { name: 'Pause' }));
    expect(handlers.onPause).toHaveBeenCalledWith(expect.objectContaining({ id: 'job-1' }));
    const paused = screen.getByRole('row', { name: /job-2/ });
    expect(within(paused).getByText('paused')).toBeInTheDocument();
    expect(within(paused).getByText('Paused: 12 of the last 20 messages failed')).toBeInTheDocument();
    expect(within(paused).queryByRole('button', { name: 'Pause' })).toBeNull();
    fireEvent.click(within(paused).getByRole('button', { name: 'Resume' }));
    expect(handlers.onResume).toHaveBeenCalledWith(expect.objectContaining({ id: 'job-2' }));
  });

  it('renders only the visible rows of 5,000 jobs', () => {
    renderTable(Array.from({ length: 5000 }, (_, i) => job(i)));
    const rows = screen.getAllByRole('button', { name: 'View' }).length;
    expect(rows).toBeGreaterThan(5);
    expect(rows).toBeLessThan(60);
    expect(screen.queryByText('job-4999')).toBeNull();
    // Beside the browser suite in CI, making 5,000 jobs' words in jsdom took over vitest's 5 s.
  }, 30_000);
});
