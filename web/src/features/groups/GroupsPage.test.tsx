import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import type { GroupChat } from '@wa/contract';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildAccount, buildGroup } from '../../testing/factories.ts';
import GroupsPage from './GroupsPage.tsx';

const account = buildAccount();

const group = (i: number, over: Partial<GroupChat> = {}): GroupChat =>
  buildGroup({
    groupId: `${i}@g.us`,
    groupName: `Group ${i}`,
    groupLink: null,
    participantCount: 5,
    ...over,
  });

type Answer = { status?: number; body: unknown } | 'pending';

/** Answers the page's calls by path; 'pending' never answers (a fetch in flight). */
function stubApi(answers: Record<string, Answer>) {
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string) => {
      const key = Object.keys(answers).find((k) => url.startsWith(k));
      const answer = key ? answers[key]! : { status: 404, body: { message: 'Not found' } };
      if (answer === 'pending') return new Promise(() => {});
      return Promise.resolve(new Response(JSON.stringify(answer.body), { status: answer.status ?? 200 }));
    }),
  );
}

function renderPage() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <MemoryRouter>
          <GroupsPage />
        </MemoryRouter>
      </QueryClientProvider>
    </MantineProvider>,
  );
}

// jsdom lays nothing out: give boxes a size so that the virtual table draws the rows in view.
const box = {
  clientHeight: Object.getOwnPropertyDescriptor(Element.prototype, 'clientHeight')!,
  clientWidth: Object.getOwnPropertyDescriptor(Element.prototype, 'clientWidth')!,
};

beforeEach(() => {
  Object.defineProperty(Element.prototype, 'clientHeight', { configurable: true, get: () => 600 });
  Object.defineProperty(Element.prototype, 'clientWidth', { configurable: true, get: () => 1200 });
  window.sessionStorage.setItem('token', 't');
  window.sessionStorage.setItem('isMultiSessionEnabled', '0');
});
afterEach(() => {
  Object.defineProperty(Element.prototype, 'clientHeight', box.clientHeight);
  Object.defineProperty(Element.prototype, 'clientWidth', box.clientWidth);
  cleanup();
  vi.unstubAllGlobals();
  window.sessionStorage.clear();
});

describe('GroupsPage', () => {
  it('asks to connect WhatsApp first when the user has no session', async () => {
    stubApi({ '/api/sessions': { body: { success: true, sessions: [] } } });
    renderPage();
    expect(
      await screen.findByText('No active session found. Please connect WhatsApp first.'),
    ).toBeInTheDocument();
    // One click to where a WhatsApp is linked.
    expect(screen.getByRole('link', { name: 'Link WhatsApp in Instances' }).getAttribute('href')).toBe(
      '/instances',
    );
    expect(screen.queryByRole('button', { name: 'CSV' })).toBeNull();
  });

  it("shows 'Loading group chats...' while the groups are fetched", async () => {
    stubApi({
      '/api/sessions': { body: { success: true, sessions: [account] } },
      '/api/groupChats/': 'pending',
    });
    renderPage();
    expect(await screen.findByRole('button', { name: 'CSV' })).toBeInTheDocument();
    expect(screen.getByText('Loading group chats...')).toBeInTheDocument();
  });

  it("says 'No group chats found' for a session without groups", async () => {
    stubApi({
      '/api/sessions': { body: { success: true, sessions: [account] } },
      '/api/groupChats/919800000001_abc': { body: { success: true, groups: [], message: 'No groups' } },
    });
    renderPage();
    expect(await screen.findByText('No group chats found')).toBeInTheDocument();
  });

  it('lists the first session’s groups without a selector when multi-session is off', async () => {
    stubApi({
      '/api/sessions': { body: { success: true, sessions: [account, { ...account, sessionId: 'other' }] } },
      '/api/groupChats/919800000001_abc': {
        body: { success: true, groups: [group(1), group(2, { groupName: '<i>Team</i>' })], message: 'ok' },
      },
    });
    renderPage();
    const table = await screen.findByRole('table', { name: 'Group chats' });
    expect(await within(table).findByRole('button', { name: 'Group 1' })).toBeInTheDocument();
    expect(within(table).getByRole('button', { name: '<i>Team</i>' })).toBeInTheDocument();
    expect(table.querySelector('i')).toBeNull();
    expect(screen.queryByRole('combobox', { name: 'Phone number' })).toBeNull();

    fireEvent.change(screen.getByRole('textbox', { name: 'Search groups' }), { target: { value: 'te' } });
    expect(screen.getByText('Enter at least 3 characters')).toBeInTheDocument();
    fireEvent.change(screen.getByRole('textbox', { name: 'Search groups' }), { target: { value: 'TEA' } });
    expect(within(table).queryByRole('button', { name: 'Group 1' })).toBeNull();
    expect(screen.getByText('1 of 2 groups')).toBeInTheDocument();
  });
});
