import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../lib/api.ts';
import { QR_TEXT, useQrFlow } from './useQrFlow.ts';

const api = vi.hoisted(() => ({
  apiBlobUrl: vi.fn<(path: string, signal?: AbortSignal) => Promise<string>>(),
  apiFetch: vi.fn<(path: string, options?: unknown) => Promise<unknown>>(),
}));

vi.mock('../../lib/api.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../lib/api.ts')>()),
  apiBlobUrl: api.apiBlobUrl,
  apiFetch: api.apiFetch,
}));

/** Advances fake time and lets the promises it released settle. */
const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

const notConnected = { success: true, connected: false, status: 'PENDING', statusReason: null };

describe('useQrFlow', () => {
  let served = 0;
  beforeEach(() => {
    vi.useFakeTimers();
    served = 0;
    URL.revokeObjectURL = vi.fn();
    vi.spyOn(console, 'error').mockImplementation(() => {});
    api.apiBlobUrl.mockImplementation(async () => `blob:qr-${++served}`);
    api.apiFetch.mockResolvedValue(notConnected);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    api.apiBlobUrl.mockReset();
    api.apiFetch.mockReset();
  });

  it('waits 1 s, shows the QR with a 15 s countdown, then fetches a new one', async () => {
    const { result } = renderHook(() => useQrFlow('9198_a', () => {}));
    expect(result.current.state.phase).toBe('waiting');
    await advance(999);
    expect(api.apiBlobUrl).not.toHaveBeenCalled();
    await advance(1);
    expect(api.apiBlobUrl).toHaveBeenCalledTimes(1);
    expect(api.apiBlobUrl.mock.calls[0]![0]).toMatch(/^\/api\/9198_a\/QR\?t=\d+$/);
    expect(result.current.state).toMatchObject({ phase: 'shown', imageUrl: 'blob:qr-1', countdown: 15 });

    await advance(1_000);
    expect(result.current.state.countdown).toBe(14);
    await advance(13_000);
    expect(result.current.state.countdown).toBe(1);
    expect(api.apiBlobUrl).toHaveBeenCalledTimes(1);
    await advance(1_000);
    expect(api.apiBlobUrl).toHaveBeenCalledTimes(2);
    expect(result.current.state).toMatchObject({ phase: 'shown', imageUrl: 'blob:qr-2', countdown: 15 });
    expect(URL.revokeObjectURL).toHaveBeenCalledWith('blob:qr-1');
  });

  it('polls the status every 3 s and reports success, closing 3 s later', async () => {
    const onConnected = vi.fn();
    const { result } = renderHook(() => useQrFlow('9198_a', onConnected));
    await advance(2_999);
    expect(api.apiFetch).not.toHaveBeenCalled();
    await advance(1);
    expect(api.apiFetch).toHaveBeenCalledWith('/api/9198_a/status', expect.anything());
    api.apiFetch.mockResolvedValue({ ...notConnected, connected: true, status: 'CONNECTED' });
    await advance(3_000);
    expect(api.apiFetch).toHaveBeenCalledTimes(2);
    expect(result.current.state.phase).toBe('connected');
    expect(QR_TEXT.connected).toBe('Successfully Connected! Your WhatsApp instance is now ready to use.');
    await advance(2_999);
    expect(onConnected).not.toHaveBeenCalled();
    await advance(1);
    expect(onConnected).toHaveBeenCalledTimes(1);
    // Nothing runs any more: no polls, no QR refresh.
    const polls = api.apiFetch.mock.calls.length;
    const qrs = api.apiBlobUrl.mock.calls.length;
    await advance(20_000);
    expect(api.apiFetch.mock.calls.length).toBe(polls);
    expect(api.apiBlobUrl.mock.calls.length).toBe(qrs);
  });

  it('retries a failed QR fetch 3 times 1 s apart, then fails; Retry starts over', async () => {
    api.apiBlobUrl.mockRejectedValue(new Error('HTTP error! status: 404'));
    const { result } = renderHook(() => useQrFlow('9198_a', () => {}));
    await advance(1_000);
    expect(api.apiBlobUrl).toHaveBeenCalledTimes(1);
    await advance(1_000);
    expect(api.apiBlobUrl).toHaveBeenCalledTimes(2);
    await advance(1_000);
    expect(api.apiBlobUrl).toHaveBeenCalledTimes(3);
    expect(result.current.state.phase).toBe('waiting');
    await advance(1_000);
    expect(api.apiBlobUrl).toHaveBeenCalledTimes(4);
    expect(result.current.state).toMatchObject({
      phase: 'failed',
      error: 'Failed to fetch QR code. Please try again.',
    });
    await advance(5_000);
    expect(api.apiBlobUrl).toHaveBeenCalledTimes(4);

    api.apiBlobUrl.mockImplementation(async () => 'blob:again');
    act(() => result.current.retry());
    expect(result.current.state.phase).toBe('waiting');
    await advance(1_000);
    expect(result.current.state).toMatchObject({ phase: 'shown', imageUrl: 'blob:again', error: null });
  });

  it('says in words why there is no QR when WhatsApp cannot be reached', async () => {
    const why =
      "Cannot reach WhatsApp: check this server's internet connection. Retrying by itself. (getaddrinfo ENOTFOUND)";
    api.apiBlobUrl.mockRejectedValue(new ApiError(404, why, why));
    api.apiFetch.mockResolvedValue({ ...notConnected, statusReason: why });
    const { result } = renderHook(() => useQrFlow('9198_a', () => {}));
    await advance(1_000);
    // while it keeps trying, the reason is already there
    expect(result.current.state).toMatchObject({ phase: 'waiting', reason: why });
    await advance(3_000);
    expect(result.current.state).toMatchObject({
      phase: 'failed',
      error: 'Failed to fetch QR code. Please try again.',
      reason: why,
    });
  });

  it('stops everything when closed (no session)', async () => {
    const { rerender } = renderHook(({ id }) => useQrFlow(id, () => {}), {
      initialProps: { id: '9198_a' as string | null },
    });
    await advance(1_000);
    rerender({ id: null });
    const polls = api.apiFetch.mock.calls.length;
    await advance(30_000);
    expect(api.apiFetch.mock.calls.length).toBe(polls);
    expect(api.apiBlobUrl).toHaveBeenCalledTimes(1);
    expect(URL.revokeObjectURL).toHaveBeenCalledWith('blob:qr-1');
  });
});
