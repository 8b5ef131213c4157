import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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

describe('MisReport', () => {
  it('takes From and To as dd/mm/yyyy, asks for their whole days in local time, and Clear drops them', async () => {
    renderReport();
    expect(await screen.findByText('No jobs found')).toBeTruthy();
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
    expect(await screen.findByText('User not found')).toBeTruthy();
  });

  it("says 'Error fetching jobs: ...' when the server cannot be reached", async () => {
    fetchMock.mockImplementation(() => Promise.reject(new TypeError('Failed to fetch')));
    renderReport();
    expect(await screen.findByText('Error fetching jobs: Failed to fetch')).toBeTruthy();
  });
});
