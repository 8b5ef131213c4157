import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MisReport } from '../features/report/MisReport.tsx';
import { hashPath, startArrival } from './arrival.ts';
import { AppRoutes } from './routes.tsx';

let fetchMock: ReturnType<typeof vi.fn>;
const listCalls = () =>
  fetchMock.mock.calls
    .map((c) => new URL(String(c[0]), 'http://x'))
    .filter((u) => u.pathname.startsWith('/api/message-jobs/'))
    .map((u) => `${u.pathname}${u.search}`);

const signIn = (role: 'USER' | 'ADMIN') => {
  window.sessionStorage.setItem('token', 't');
  window.sessionStorage.setItem('userId', 'user-1');
  window.sessionStorage.setItem('userRole', role);
};

beforeEach(() => {
  fetchMock = vi.fn(() =>
    Promise.resolve(
      new Response(
        JSON.stringify({
          success: true,
          jobs: [],
          message: 'No message jobs found',
          total: 0,
          summary: {
            jobs: 0,
            byStatus: { pending: 0, scheduled: 0, processing: 0, paused: 0, completed: 0, failed: 0 },
            recipients: 0,
            sent: 0,
            failed: 0,
          },
          nextCursor: null,
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

describe('startArrival', () => {
  it("reads the MIS Report's first page before the page renders, and the page does not read it again", async () => {
    signIn('USER');
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    startArrival(client, '#/reports');
    expect(listCalls()).toEqual(['/api/message-jobs/user-1?limit=100']);
    await waitFor(() => expect(client.isFetching()).toBe(0));

    render(
      <MantineProvider>
        <QueryClientProvider client={client}>
          <MisReport userId="user-1" />
        </QueryClientProvider>
      </MantineProvider>,
    );
    expect(await screen.findByText('No jobs found')).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(listCalls()).toEqual(['/api/message-jobs/user-1?limit=100']);
  });

  it('reads nothing for other pages, for an admin (sent to the admin home) or when not signed in', () => {
    signIn('USER');
    startArrival(new QueryClient(), '#/dashboard');
    signIn('ADMIN');
    startArrival(new QueryClient(), '#/reports');
    window.sessionStorage.clear();
    startArrival(new QueryClient(), '#/reports');
    expect(listCalls()).toEqual([]);
  });
});

describe('hashPath', () => {
  it("is the router's path of a location hash", () => {
    expect(hashPath('#/reports')).toBe('/reports');
    expect(hashPath('#/reports/')).toBe('/reports');
    expect(hashPath('#/reports?x=1')).toBe('/reports');
    expect(hashPath('')).toBe('/');
    expect(hashPath('#/')).toBe('/');
  });
});

describe('the page a visit opens on', () => {
  it('renders at once when its chunk was preloaded on arrival, without the loader', async () => {
    signIn('USER');
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    await startArrival(client, '#/reports');
    render(
      <MantineProvider>
        <QueryClientProvider client={client}>
          <MemoryRouter initialEntries={['/reports']}>
            <AppRoutes />
          </MemoryRouter>
        </QueryClientProvider>
      </MantineProvider>,
    );
    // In the first frame: React.lazy would show the loader first, even for a chunk already loaded.
    expect(screen.getByRole('heading', { name: 'MIS Report' })).toBeInTheDocument();
    expect(screen.queryByLabelText('Loading page')).toBeNull();
  });

  it('shows the loader while its chunk loads, then the page', async () => {
    signIn('USER');
    render(
      <MantineProvider>
        <QueryClientProvider client={new QueryClient()}>
          <MemoryRouter initialEntries={['/jobs']}>
            <AppRoutes />
          </MemoryRouter>
        </QueryClientProvider>
      </MantineProvider>,
    );
    expect(screen.getByLabelText('Loading page')).toBeInTheDocument();
    expect(
      await screen.findByRole('heading', { name: 'Message Jobs' }, { timeout: 10_000 }),
    ).toBeInTheDocument();
    expect(screen.queryByLabelText('Loading page')).toBeNull();
  });
});
