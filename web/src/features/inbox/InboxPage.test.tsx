import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import {
  CLOUD_API_CAPABILITIES,
  CLOUD_TEXTS,
  INBOX_TEXTS,
  type InboxMessage,
  type InboxThread,
} from '@wa/contract';
import type { ReactNode } from 'react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildAccount, buildTemplate } from '../../testing/factories.ts';
import InboxPage from './InboxPage.tsx';
import { ManagedInbox } from './InboxView.tsx';

const PHONE = buildAccount({
  sessionId: '919800000001_ph',
  phoneNumber: '919800000001',
  sessionName: 'Shop',
});
const CLOUD = buildAccount({
  id: 's2',
  sessionId: '919800000002_cl',
  phoneNumber: '919800000002',
  sessionName: 'Cloud desk',
  capabilities: CLOUD_API_CAPABILITIES,
});

const HOUR = 3_600_000;

// jsdom has no scrolling: Mantine's Select scrolls its chosen option into view when it opens.
Element.prototype.scrollIntoView ??= () => {};

const thread = (over: Partial<InboxThread> = {}): InboxThread => ({
  personId: 'p1',
  name: 'Asha Rao',
  phone: '919811100001',
  lastMessage: { text: 'What is the price?', at: '2026-03-02T10:00:00.000Z', direction: 'in' },
  unread: 2,
  state: 'open',
  sessionId: PHONE.sessionId,
  windowClosesAt: null,
  optedOut: false,
  ...over,
});

const message = (over: Partial<InboxMessage> = {}): InboxMessage => ({
  id: 'm1',
  direction: 'in',
  sessionId: PHONE.sessionId,
  at: '2026-03-02T10:00:00.000Z',
  type: 'text',
  text: 'What is the price?',
  media: null,
  jobId: null,
  status: null,
  ...over,
});

type Call = { url: string; method: string; body: unknown };
let calls: Call[];
/** The server as these tests have it: each test puts its own threads and answers here. */
let server: {
  pages: { threads: InboxThread[]; nextCursor: string | null }[];
  thread: InboxThread;
  messages: InboxMessage[];
  reply: { status: number; body: unknown };
};

const json = (body: unknown, status = 200) => Promise.resolve(new Response(JSON.stringify(body), { status }));

function answer(url: string, method: string): Promise<Response> {
  const path = url.split('?')[0]!;
  const query = new URLSearchParams(url.split('?')[1] ?? '');
  if (path === '/api/inbox') {
    const page = query.get('cursor') ? Number(query.get('cursor')) : 0;
    return json({ success: true, ...server.pages[page] });
  }
  if (path === '/api/inbox/counts') return json({ success: true, unreadThreads: 3 });
  if (path.startsWith(`/api/inbox/${server.thread.personId}/media/`))
    return Promise.resolve(new Response('file'));
  if (path === `/api/inbox/${server.thread.personId}`)
    return json({ success: true, thread: server.thread, messages: server.messages });
  if (path.endsWith('/reply') && method === 'POST') return json(server.reply.body, server.reply.status);
  if (path.endsWith('/state') && method === 'POST') return json({ success: true });
  if (path === '/api/sessions') return json({ success: true, sessions: [PHONE, CLOUD] });
  if (path === '/api/credit-prices') return json({ success: true, prices: { linked: 1, cloud: 2 } });
  if (path === '/api/userDetails') return json({ credits: { user_credits: 10, admin_users: [] } });
  if (path.endsWith('/templates')) return json({ success: true, templates: [buildTemplate()] });
  return json({ success: false, message: 'Not found' }, 404);
}

beforeEach(() => {
  // jsdom makes no object URLs: a file fetched with the token is shown (or saved) through one.
  URL.createObjectURL = vi.fn(() => 'blob:inbox-file');
  URL.revokeObjectURL = vi.fn();
  window.sessionStorage.setItem('token', 't');
  window.sessionStorage.setItem('userCreditsAvailable', '10');
  calls = [];
  server = {
    pages: [{ threads: [thread()], nextCursor: null }],
    thread: thread(),
    messages: [message()],
    reply: { status: 200, body: { success: true, jobId: 'job-answer-1', creditsCharged: 1 } },
  };
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string, init: RequestInit = {}) => {
      const method = init.method ?? 'GET';
      calls.push({ url, method, body: init.body ? JSON.parse(String(init.body)) : undefined });
      return answer(url, method);
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.sessionStorage.clear();
});

/** The address the page is at, to see what the filters put in it. */
function Where() {
  const location = useLocation();
  return <output aria-label="Address">{`${location.pathname}${location.search}`}</output>;
}

function renderAt(path: string, node: ReactNode = <InboxPage />) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    // env 'test': no transitions, and dropdowns shown although jsdom lays nothing out.
    <MantineProvider env="test">
      <QueryClientProvider client={client}>
        <MemoryRouter initialEntries={[path]}>
          <Routes>
            <Route path="/inbox" element={node} />
          </Routes>
          <Where />
        </MemoryRouter>
      </QueryClientProvider>
    </MantineProvider>,
  );
}

const listCalls = () => calls.filter((c) => c.url.startsWith('/api/inbox?'));
const lastListQuery = () => new URLSearchParams(listCalls().at(-1)!.url.split('?')[1]);

describe('Inbox: the thread list', () => {
  it("shows each thread's person, last message, account, unread count and state, a Cloud number's window, and pages by cursor", async () => {
    const closes = new Date(Date.now() + 5 * HOUR).toISOString();
    server.pages = [
      {
        threads: [
          thread(),
          thread({
            personId: 'p2',
            name: null,
            phone: '919811100002',
            lastMessage: { text: 'Thanks, noted', at: '2026-03-01T09:00:00.000Z', direction: 'out' },
            unread: 0,
            state: 'done',
            sessionId: CLOUD.sessionId,
            windowClosesAt: closes,
          }),
        ],
        nextCursor: '1',
      },
      {
        threads: [
          thread({
            personId: 'p3',
            name: 'Ravi',
            unread: 0,
            optedOut: true,
            lastMessage: {
              text: 'Red, Blue',
              at: '2026-02-28T09:00:00.000Z',
              direction: 'in',
              type: 'poll_vote',
            },
          }),
        ],
        nextCursor: null,
      },
    ];
    renderAt('/inbox');
    const table = await screen.findByRole('table', { name: 'Conversations' });
    const asha = await within(table).findByRole('row', { name: /Asha Rao/ });
    expect(within(asha).getByText('919811100001')).toBeInTheDocument();
    expect(within(asha).getByText('What is the price?')).toBeInTheDocument();
    expect(within(asha).getByText('Shop (919800000001)')).toBeInTheDocument();
    expect(within(asha).getByText('2 unread')).toBeInTheDocument();
    expect(within(asha).getByText('Open')).toBeInTheDocument();
    // A linked phone has no window.
    expect(within(asha).queryByText(/^Window/)).toBeNull();

    const other = within(table).getByRole('row', { name: /919811100002/ });
    expect(within(other).getByText('You: Thanks, noted')).toBeInTheDocument();
    expect(within(other).getByText('Done')).toBeInTheDocument();
    expect(within(other).queryByText(/unread/)).toBeNull();
    expect(within(other).getByText('Cloud desk (919800000002)')).toBeInTheDocument();
    expect(within(other).getByText(/^Window closes /)).toBeInTheDocument();

    fireEvent.click(screen.getByRole('button', { name: 'Load more conversations' }));
    const ravi = await within(table).findByRole('row', { name: /Ravi/ });
    expect(within(ravi).getByText('Opted out')).toBeInTheDocument();
    expect(within(ravi).getByText('Voted: Red, Blue')).toBeInTheDocument();
    expect(lastListQuery().get('cursor')).toBe('1');
    expect(screen.queryByRole('button', { name: 'Load more conversations' })).toBeNull();
  });

  it('asks the server for the filters chosen and keeps them in the address', async () => {
    renderAt('/inbox');
    await screen.findByRole('table', { name: 'Conversations' });
    fireEvent.click(screen.getByRole('checkbox', { name: 'Needs a reply' }));
    await waitFor(() => expect(lastListQuery().get('needsReply')).toBe('true'));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Opted out' }));
    await waitFor(() => expect(lastListQuery().get('optedOut')).toBe('true'));
    fireEvent.change(screen.getByRole('textbox', { name: 'Search' }), { target: { value: ' 98111 ' } });
    await waitFor(() => expect(lastListQuery().get('q')).toBe('98111'));
    fireEvent.click(
      within(screen.getByRole('radiogroup', { name: 'Show' })).getByRole('radio', { name: 'Unread' }),
    );
    await waitFor(() => expect(lastListQuery().get('state')).toBe('unread'));
    fireEvent.click(screen.getByRole('combobox', { name: 'Account' }));
    fireEvent.click(await screen.findByRole('option', { name: 'Cloud desk (919800000002)' }));
    await waitFor(() => expect(lastListQuery().get('sessionId')).toBe(CLOUD.sessionId));
    expect(screen.getByRole('status', { name: 'Address' })).toHaveTextContent(
      `/inbox?needsReply=true&optedOut=true&q=98111&state=unread&sessionId=${CLOUD.sessionId}`,
    );
  });

  it("opened from a job's Replies, shows only that job's replies until the filter is removed", async () => {
    server.pages = [{ threads: [], nextCursor: null }];
    renderAt('/inbox?jobId=job-12345678-abcd');
    expect(await screen.findByText('No conversations match these filters.')).toBeInTheDocument();
    expect(lastListQuery().get('jobId')).toBe('job-12345678-abcd');
    expect(screen.getByText('Replies to job job-1234')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Show replies to every job' }));
    await waitFor(() => expect(lastListQuery().has('jobId')).toBe(false));
    expect(screen.queryByText(/Replies to job/)).toBeNull();
  });
});

/** Opens Asha's thread from the list. */
async function openThread() {
  fireEvent.click(await screen.findByRole('button', { name: 'Asha Rao' }));
  return screen.findByRole('list', { name: 'Messages' });
}

describe('Inbox: a thread and its answer', () => {
  it('shows the messages both ways with their jobs and states, and answers through the account the person wrote to after the charge confirmation', async () => {
    server.messages = [
      message({
        id: 'm0',
        direction: 'out',
        at: '2026-03-02T09:00:00.000Z',
        text: 'Our sale starts today',
        jobId: 'job-sale-0001',
        status: 'read',
      }),
      message({ jobId: 'job-sale-0001' }),
      message({ id: 'm2', at: '2026-03-02T10:01:00.000Z', type: 'poll_vote', text: 'Red, Blue' }),
      // A vote on a poll the product did not send: its options are not known.
      message({ id: 'm4', at: '2026-03-02T10:01:30.000Z', type: 'poll_vote', text: '' }),
      message({
        id: 'm3',
        at: '2026-03-02T10:02:00.000Z',
        type: 'image',
        text: 'This one',
        media: { mime: 'image/jpeg', fileName: 'saree.jpg', url: '/api/inbox/p1/media/m3' },
      }),
    ];
    renderAt('/inbox');
    const messages = await openThread();
    const [sent, received, vote, unknownVote, photo] = within(messages).getAllByRole('listitem');
    expect(sent).toHaveAccessibleName('Sent');
    expect(sent).toHaveTextContent('Our sale starts today');
    expect(sent).toHaveTextContent('· read');
    expect(within(sent!).getByRole('link', { name: 'job job-sale' })).toHaveAttribute(
      'href',
      '/jobs?job=job-sale-0001',
    );
    expect(received).toHaveAccessibleName('Received');
    expect(received).toHaveTextContent('replies to');
    expect(vote).toHaveTextContent('Voted: Red, Blue');
    expect(unknownVote).toHaveTextContent('(poll vote)');
    expect(unknownVote).not.toHaveTextContent('Voted');
    // An image the person sent is shown, fetched with the token.
    expect(await within(photo!).findByRole('img', { name: 'Image saree.jpg' })).toHaveAttribute(
      'src',
      'blob:inbox-file',
    );
    expect(photo).toHaveTextContent('This one');
    expect(calls.some((c) => c.url === '/api/inbox/p1/media/m3')).toBe(true);
    expect(screen.getByRole('status', { name: 'Address' })).toHaveTextContent('/inbox?person=p1');

    const box = screen.getByRole('region', { name: 'Answer' });
    expect(within(box).getByRole('combobox', { name: 'Answer from' })).toHaveValue('Shop (919800000001)');
    // Nothing typed: said beside the box, and nothing asked or sent.
    fireEvent.click(within(box).getByRole('button', { name: 'Send answer' }));
    expect(within(box).getByText('Type an answer or attach a file')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).toBeNull();

    fireEvent.change(within(box).getByRole('textbox', { name: 'Answer' }), {
      target: { value: 'It is ₹499 today' },
    });
    fireEvent.click(within(box).getByRole('button', { name: 'Send answer' }));
    const confirm = await screen.findByRole('dialog', { name: 'Confirm answer' });
    expect(within(confirm).getByText('1 recipient · 1 credit · balance after 9')).toBeInTheDocument();
    expect(calls.some((c) => c.url.endsWith('/reply'))).toBe(false);
    fireEvent.click(within(confirm).getByRole('button', { name: 'Send answer' }));

    expect(await within(box).findByRole('status')).toHaveTextContent(
      'Answer sent (job job-answer-1) · 1 credit',
    );
    const post = calls.find((c) => c.url === '/api/inbox/p1/reply')!;
    expect(post.method).toBe('POST');
    expect(post.body).toEqual({ sessionId: PHONE.sessionId, type: 'string', content: 'It is ₹499 today' });
    expect(within(box).getByRole('textbox', { name: 'Answer' })).toHaveValue('');
  });

  it('keeps the answer typed when the server refuses it, and says why', async () => {
    server.reply = { status: 402, body: { success: false, message: 'Insufficient credits' } };
    renderAt('/inbox');
    await openThread();
    const box = screen.getByRole('region', { name: 'Answer' });
    fireEvent.change(within(box).getByRole('textbox', { name: 'Answer' }), { target: { value: 'Hello' } });
    fireEvent.click(within(box).getByRole('button', { name: 'Send answer' }));
    const confirm = await screen.findByRole('dialog', { name: 'Confirm answer' });
    fireEvent.click(within(confirm).getByRole('button', { name: 'Send answer' }));
    expect(await within(box).findByRole('alert')).toHaveTextContent('Insufficient credits');
    expect(within(box).getByRole('textbox', { name: 'Answer' })).toHaveValue('Hello');
  });

  it('a Cloud thread whose window has closed answers with an approved template only, at the Cloud price', async () => {
    server.thread = thread({ sessionId: CLOUD.sessionId, windowClosesAt: null });
    renderAt('/inbox');
    await openThread();
    const box = screen.getByRole('region', { name: 'Answer' });
    expect(within(box).getByText(INBOX_TEXTS.windowClosed)).toBeInTheDocument();
    expect(within(box).queryByRole('textbox', { name: 'Answer' })).toBeNull();
    expect(within(box).queryByRole('button', { name: 'Attach a file' })).toBeNull();
    fireEvent.click(within(box).getByRole('button', { name: 'Send template' }));
    expect(within(box).getByText(CLOUD_TEXTS.cloudNeedsTemplate)).toBeInTheDocument();

    await within(box).findByPlaceholderText('Choose an approved template');
    fireEvent.click(within(box).getByRole('combobox', { name: 'Template' }));
    fireEvent.click(await screen.findByRole('option', { name: 'order_update (en_US, utility)' }));
    fireEvent.click(within(box).getByRole('button', { name: 'Send template' }));
    expect(within(box).getByText(CLOUD_TEXTS.emptyParameter('order_update', 1))).toBeInTheDocument();
    fireEvent.change(within(box).getByRole('textbox', { name: '{{1}}' }), { target: { value: 'A-7' } });
    fireEvent.click(within(box).getByRole('button', { name: 'Send template' }));
    const confirm = await screen.findByRole('dialog', { name: 'Confirm answer' });
    expect(within(confirm).getByText('1 recipient · 2 credits · balance after 8')).toBeInTheDocument();
    fireEvent.click(within(confirm).getByRole('button', { name: 'Send template' }));
    await within(box).findByRole('status');
    expect(calls.find((c) => c.url === '/api/inbox/p1/reply')!.body).toEqual({
      sessionId: CLOUD.sessionId,
      type: 'template',
      content: { name: 'order_update', language: 'en_US', parameters: ['A-7'] },
    });
  });

  it('inside the window a Cloud thread answers in free form; answering from a linked phone instead is free form too', async () => {
    server.thread = thread({
      sessionId: CLOUD.sessionId,
      windowClosesAt: new Date(Date.now() + HOUR).toISOString(),
    });
    renderAt('/inbox');
    await openThread();
    const box = screen.getByRole('region', { name: 'Answer' });
    expect(within(box).queryByText(INBOX_TEXTS.windowClosed)).toBeNull();
    expect(within(box).getByRole('textbox', { name: 'Answer' })).toBeInTheDocument();
    expect(screen.getByText(/· Window closes /)).toBeInTheDocument();
  });

  it('an opted-out person has no answer box, and the reason is shown', async () => {
    server.thread = thread({ optedOut: true });
    renderAt('/inbox');
    await openThread();
    expect(screen.getByText(INBOX_TEXTS.optedOut)).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Answer' })).toBeNull();
  });

  it('Mark done asks the server to close the thread; Back to conversations returns to the list', async () => {
    renderAt('/inbox');
    await openThread();
    fireEvent.click(screen.getByRole('button', { name: 'Mark done' }));
    await waitFor(() =>
      expect(calls.find((c) => c.url === '/api/inbox/p1/state')?.body).toEqual({ state: 'done' }),
    );
    fireEvent.click(screen.getByRole('button', { name: 'Back to conversations' }));
    expect(await screen.findByRole('table', { name: 'Conversations' })).toBeInTheDocument();
  });
});

describe("Inbox: an admin reading a managed user's", () => {
  it("asks for that user, fetches the user's files, and shows the thread without an answer box or Mark done", async () => {
    server.messages = [
      message({
        type: 'document',
        text: '',
        media: { mime: 'application/pdf', fileName: 'order.pdf', url: '/api/inbox/p1/media/m1' },
      }),
    ];
    renderAt('/inbox', <ManagedInbox userId="u-7" />);
    await openThread();
    fireEvent.click(screen.getByRole('button', { name: 'Download order.pdf' }));
    await waitFor(() => expect(calls.some((c) => c.url === '/api/inbox/p1/media/m1?userId=u-7')).toBe(true));
    expect(lastListQuery().get('userId')).toBe('u-7');
    expect(calls.some((c) => c.url === '/api/inbox/p1?userId=u-7')).toBe(true);
    expect(screen.getByText(INBOX_TEXTS.readOnly)).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Answer' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Mark done' })).toBeNull();
  });
});
