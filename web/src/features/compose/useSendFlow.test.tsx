import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const api = vi.hoisted(() => ({ sendMessage: vi.fn(), getJobDetails: vi.fn() }));
vi.mock('./api/send-message.ts', () => ({ sendMessage: api.sendMessage }));
vi.mock('../jobs/api/get-job-details.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../jobs/api/get-job-details.ts')>()),
  getJobDetails: api.getJobDetails,
}));
vi.mock('../auth/api/get-user-details.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../auth/api/get-user-details.ts')>();
  return {
    ...actual,
    userDetailsQuery: () => ({ queryKey: actual.userDetailsKeys.all, queryFn: async () => ({}) }),
  };
});

import { needsConfirmation, setConfirmSendsFrom } from '../../components/charge/confirm-pref.ts';
import { ApiError } from '../../lib/api.ts';
import { JOB_POLL_MS, useSendFlow } from './useSendFlow.ts';

const job = (status: string, success: number, failed: number) => ({
  success: true,
  message: '',
  job: {
    status,
    progress: { completed: success + failed, total: 2, percentComplete: ((success + failed) / 2) * 100 },
    results: { success, failed, delivered: 0, read: 0 },
    elapsedTimeMs: 1200,
  },
});

function setup(audience: 'groups' | 'individuals' = 'groups', selectedIds = ['g1', 'g2']) {
  const onSelectionReset = vi.fn();
  const client = new QueryClient();
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={client}>{children}</QueryClientProvider>
  );
  const hook = renderHook(
    () =>
      useSendFlow({
        audience,
        accountId: 's1',
        selectedCount: selectedIds.length,
        target: () => ({ chatIds: selectedIds }),
        onSelectionReset,
      }),
    {
      wrapper,
    },
  );
  return { ...hook, onSelectionReset };
}

beforeEach(() => {
  vi.useFakeTimers();
  // These tests are about the send; the confirmation has its own test below.
  setConfirmSendsFrom(1_000_000);
  api.sendMessage.mockReset();
  api.getJobDetails.mockReset();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('useSendFlow', () => {
  it('asks before Send Now by default and sends only when confirmed; a size below the chosen one goes at once', async () => {
    window.localStorage.removeItem('wa.confirmSendsFrom');
    api.sendMessage.mockResolvedValue({ success: true, message: 'ok', totalChats: 2, jobId: 'j1' });
    const { result } = setup();
    act(() => result.current.dispatch({ type: 'text', value: 'Hello' }));
    await act(() => result.current.sendNow());
    expect(result.current.confirmModal.opened).toBe(true);
    expect(api.sendMessage).not.toHaveBeenCalled();
    act(() => result.current.confirmModal.onCancel());
    expect(result.current.confirmModal.opened).toBe(false);
    expect(api.sendMessage).not.toHaveBeenCalled();
    await act(() => result.current.sendNow());
    await act(async () => result.current.confirmModal.onConfirm(2));
    expect(api.sendMessage).toHaveBeenCalledTimes(1);
    // Two recipients, below the chosen 3: no question.
    expect(needsConfirmation(2)).toBe(true);
    setConfirmSendsFrom(3);
    expect(needsConfirmation(2)).toBe(false);
    expect(needsConfirmation(3)).toBe(true);
  });

  it('shows the first validation problem beside its control and sends nothing', async () => {
    const { result } = setup();
    await act(() => result.current.sendNow());
    expect(result.current.fieldError).toEqual({ field: 'text', text: 'Please enter a message' });
    expect(result.current.banner).toBeNull();
    act(() => result.current.changeKind('poll'));
    expect(result.current.fieldError).toBeNull();
    act(() => result.current.dispatch({ type: 'pollQuestion', value: 'Q' }));
    act(() => result.current.openSchedule());
    expect(result.current.fieldError).toEqual({
      field: 'pollOptions',
      text: 'Please add at least two poll options',
    });
    expect(result.current.scheduleModal.opened).toBe(false);
    // Editing the message clears the problem shown beside it.
    act(() => result.current.dispatch({ type: 'pollOption', index: 0, value: 'Yes' }));
    expect(result.current.fieldError).toBeNull();
    expect(api.sendMessage).not.toHaveBeenCalled();
  });

  it('puts a problem with the recipients in the banner and asks for its focus', async () => {
    const { result } = setup('groups', []);
    act(() => result.current.dispatch({ type: 'text', value: 'Hello' }));
    const before = result.current.bannerFocus;
    await act(() => result.current.sendNow());
    expect(result.current.banner?.text).toBe('Please select at least one group');
    expect(result.current.bannerFocus).toBe(before + 1);
    expect(result.current.fieldError).toBeNull();
  });

  it('polls every 2 s, keeps polling through errors, then resets and reports', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    api.sendMessage.mockResolvedValue({ success: true, message: 'ok', totalChats: 2, jobId: 'j1' });
    api.getJobDetails
      .mockRejectedValueOnce(new TypeError('Failed to fetch'))
      .mockResolvedValueOnce(job('processing', 1, 0))
      .mockResolvedValueOnce(job('failed', 1, 1));
    const { result, onSelectionReset } = setup();
    act(() => result.current.dispatch({ type: 'text', value: 'Hello' }));
    await act(() => result.current.sendNow());
    expect(api.sendMessage).toHaveBeenCalledWith(
      's1',
      'groups',
      { chatIds: ['g1', 'g2'], type: 'string', content: 'Hello' },
      expect.stringMatching(/^[0-9a-f]{32}$/),
    );
    expect(result.current.busy).toBe(true);
    expect(result.current.progress?.progress.total).toBe(2);
    expect(result.current.jobExists).toBe(true);

    await act(() => vi.advanceTimersByTimeAsync(JOB_POLL_MS - 1));
    expect(api.getJobDetails).not.toHaveBeenCalled();
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(api.getJobDetails).toHaveBeenCalledTimes(1);
    expect(error).toHaveBeenCalled();
    expect(result.current.busy).toBe(true);

    await act(() => vi.advanceTimersByTimeAsync(JOB_POLL_MS));
    expect(result.current.progress?.status).toBe('processing');
    await act(() => vi.advanceTimersByTimeAsync(JOB_POLL_MS));
    expect(api.getJobDetails).toHaveBeenCalledTimes(3);
    expect(result.current.busy).toBe(false);
    expect(result.current.progress).toBeNull();
    expect(result.current.compose.text).toBe('');
    expect(onSelectionReset).toHaveBeenCalledTimes(1);
    expect(result.current.banner).toEqual({
      color: 'yellow',
      text: 'Message sending failed. Successfully sent to 1 groups. Failed for 1 groups. You can retry failed messages from the Jobs page.',
      detail: '1 sent, 1 failed — Retry Failed in Message Jobs',
    });
    expect(result.current.bannerFocus).toBe(1);
    await act(() => vi.advanceTimersByTimeAsync(JOB_POLL_MS * 3));
    expect(api.getJobDetails).toHaveBeenCalledTimes(3);
    error.mockRestore();
  });

  it("shows the server's refusal and clears the busy state", async () => {
    api.sendMessage.mockRejectedValue(
      new ApiError(
        402,
        'Your Credit Balance is lower than the message count',
        'Your Credit Balance is lower than the message count',
      ),
    );
    const { result } = setup('individuals', ['919800000001']);
    act(() => result.current.dispatch({ type: 'text', value: 'Hi' }));
    await act(() => result.current.sendNow());
    expect(api.sendMessage).toHaveBeenCalledWith(
      's1',
      'individuals',
      { chatIds: ['919800000001'], content: 'Hi' },
      expect.stringMatching(/^[0-9a-f]{32}$/),
    );
    expect(result.current.busy).toBe(false);
    expect(result.current.banner?.text).toBe('Your Credit Balance is lower than the message count');
    // Each click is a new request with its own Idempotency-Key (the server replays only a repeat of one).
    await act(() => result.current.sendNow());
    const keys = api.sendMessage.mock.calls.map((c) => c[3]);
    expect(keys).toHaveLength(2);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('schedules with an ISO time and reports the local time', async () => {
    vi.setSystemTime(new Date(2026, 10, 22, 10, 0, 0));
    api.sendMessage.mockResolvedValue({ success: true, message: 'ok', totalChats: 2, jobId: 'j2' });
    const { result, onSelectionReset } = setup();
    act(() => result.current.dispatch({ type: 'text', value: 'Later' }));
    act(() => result.current.openSchedule());
    expect(result.current.scheduleModal.opened).toBe(true);
    await act(() => result.current.schedule('2026-11-22T11:30'));
    const at = new Date(2026, 10, 22, 11, 30);
    expect(api.sendMessage.mock.calls[0][2].scheduleTime).toBe(at.toISOString());
    expect(result.current.scheduleModal.opened).toBe(false);
    expect(result.current.banner?.text).toBe(
      `Message scheduled successfully! Scheduled for ${at.toLocaleString('en-IN')}`,
    );
    expect(result.current.compose.text).toBe('');
    // The selection is cleared too, so the same message is not scheduled twice by accident.
    expect(onSelectionReset).toHaveBeenCalledTimes(1);
    expect(api.getJobDetails).not.toHaveBeenCalled();
  });
});
