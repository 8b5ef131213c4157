import type { StatusResponse } from '@wa/contract';
import { useEffect, useRef, useState } from 'react';
import { ApiError, apiBlobUrl, apiFetch } from '../../lib/api.ts';

/** The QR connection flow's timings (docs/decisions.md, Kept to the letter). */
export const QR_TIMING = {
  initialWaitMs: 1_000,
  countdownSeconds: 15,
  statusPollMs: 3_000,
  retries: 3,
  retryDelayMs: 1_000,
  closeAfterConnectMs: 3_000,
} as const;

export const QR_TEXT = {
  connected: 'Successfully Connected! Your WhatsApp instance is now ready to use.',
  fetchFailed: 'Failed to fetch QR code. Please try again.',
  imageFailed: 'Failed to load QR image',
} as const;

export type QrFlowState = {
  phase: 'waiting' | 'shown' | 'failed' | 'connected' | 'error';
  imageUrl: string | null;
  /** Seconds until the QR image is fetched again. */
  countdown: number;
  error: string | null;
  /** Why there is no QR, in the server's words (e.g. WhatsApp cannot be reached from the server). */
  reason: string | null;
};

const initial: QrFlowState = {
  phase: 'waiting',
  imageUrl: null,
  countdown: QR_TIMING.countdownSeconds,
  error: null,
  reason: null,
};

/**
 * The QR connection flow of the specification for `sessionId` (null: idle). Waits 1 s, fetches the
 * QR (3 retries 1 s apart, then the failure text), refreshes it every 15 s with a countdown,
 * polls the status every 3 s and, once connected, calls `onConnected` 3 s later.
 * `retry()` starts over after a failure.
 */
export function useQrFlow(accountId: string | null, onConnected: () => void) {
  const [state, setState] = useState<QrFlowState>(initial);
  const [run, setRun] = useState(0);
  const onConnectedRef = useRef(onConnected);
  onConnectedRef.current = onConnected;

  useEffect(() => {
    if (!accountId) return;
    // `run` restarts the whole flow (Retry).
    void run;
    setState(initial);
    let stopped = false;
    let imageUrl: string | null = null;
    const timeouts = new Set<ReturnType<typeof setTimeout>>();
    const intervals = new Set<ReturnType<typeof setInterval>>();
    const controller = new AbortController();
    const id = encodeURIComponent(accountId);

    const wait = (ms: number) =>
      new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          timeouts.delete(t);
          resolve();
        }, ms);
        timeouts.add(t);
      });
    const stopTimers = () => {
      for (const t of timeouts) clearTimeout(t);
      for (const i of intervals) clearInterval(i);
      timeouts.clear();
      intervals.clear();
    };

    let closeTimer: ReturnType<typeof setTimeout> | null = null;
    let countdownTimer: ReturnType<typeof setInterval> | null = null;
    const startCountdown = () => {
      if (countdownTimer) {
        clearInterval(countdownTimer);
        intervals.delete(countdownTimer);
      }
      let remaining: number = QR_TIMING.countdownSeconds;
      const timer = setInterval(() => {
        remaining -= 1;
        if (remaining <= 0) {
          clearInterval(timer);
          intervals.delete(timer);
          void loadQr();
        } else {
          setState((s) => ({ ...s, countdown: remaining }));
        }
      }, 1_000);
      countdownTimer = timer;
      intervals.add(timer);
    };

    const loadQr = async () => {
      for (let attempt = 0; attempt <= QR_TIMING.retries; attempt++) {
        if (attempt > 0) await wait(QR_TIMING.retryDelayMs);
        if (stopped) return;
        try {
          const url = await apiBlobUrl(`/api/${id}/QR?t=${Date.now()}`, controller.signal);
          if (stopped) {
            URL.revokeObjectURL(url);
            return;
          }
          if (imageUrl) URL.revokeObjectURL(imageUrl);
          imageUrl = url;
          setState({
            phase: 'shown',
            imageUrl: url,
            countdown: QR_TIMING.countdownSeconds,
            error: null,
            reason: null,
          });
          startCountdown();
          return;
        } catch (err) {
          if (stopped) return;
          console.error(`QR fetch attempt ${attempt + 1} failed:`, err);
          if (err instanceof ApiError && err.serverMessage) {
            const reason = err.serverMessage;
            setState((s) => ({ ...s, reason }));
          }
        }
      }
      setState((s) => ({ ...s, phase: 'failed', error: QR_TEXT.fetchFailed }));
    };

    const stop = () => {
      stopped = true;
      stopTimers();
      controller.abort();
    };

    const poll = setInterval(async () => {
      try {
        const status = await apiFetch<StatusResponse>(`/api/${id}/status`, { signal: controller.signal });
        if (stopped) return;
        if (!status.connected) {
          setState((s) => (s.reason === status.statusReason ? s : { ...s, reason: status.statusReason }));
          return;
        }
        stop();
        setState((s) => ({ ...s, phase: 'connected', error: null }));
        closeTimer = setTimeout(() => onConnectedRef.current(), QR_TIMING.closeAfterConnectMs);
      } catch (err) {
        if (stopped) return;
        if (err instanceof ApiError && err.status === 404) {
          stop();
          setState((s) => ({ ...s, phase: 'error', error: `Failed to connect: ${err.message}` }));
        } else {
          console.error('Status poll failed:', err);
        }
      }
    }, QR_TIMING.statusPollMs);
    intervals.add(poll);

    void wait(QR_TIMING.initialWaitMs).then(loadQr);

    return () => {
      stop();
      if (closeTimer) clearTimeout(closeTimer);
      if (imageUrl) URL.revokeObjectURL(imageUrl);
    };
  }, [accountId, run]);

  return {
    state,
    retry: () => setRun((n) => n + 1),
    imageFailed: () => setState((s) => ({ ...s, error: QR_TEXT.imageFailed })),
  };
}
