import type { PairingCodeResponse, StatusResponse } from '@wa/contract';
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, apiFetch } from '../../lib/api.ts';
import { QR_TIMING } from './useQrFlow.ts';

export const PAIRING_TEXT = {
  failed: 'Could not get a pairing code. Please try again.',
  expired: 'This code has expired. Get a new code to try again.',
} as const;

export type PairingState = {
  phase: 'loading' | 'shown' | 'expired' | 'error' | 'connected';
  code: string | null;
  /** Seconds until the code stops working. */
  secondsLeft: number;
  error: string | null;
};

const initial: PairingState = { phase: 'loading', code: null, secondsLeft: 0, error: null };

/** `m:ss` of a number of seconds. */
export const clock = (seconds: number) =>
  `${Math.floor(seconds / 60)}:${String(Math.max(0, seconds) % 60).padStart(2, '0')}`;

/** POST /api/session/{sessionId}/pairing-code (`renew`: a new code, a new linking attempt). */
export const requestPairingCode = (accountId: string, renew: boolean, signal?: AbortSignal) =>
  apiFetch<PairingCodeResponse>(`/api/session/${encodeURIComponent(accountId)}/pairing-code`, {
    method: 'POST',
    body: renew ? { renew: true } : {},
    signal,
  });

/**
 * Link by phone number for `sessionId` (null: idle): asks the server for the code, counts down to
 * its expiry, polls the status every 3 s and, once connected, calls `onConnected` 3 s later (as the
 * QR flow does). `renew()` asks for a new code.
 */
export function usePairingCode(accountId: string | null, onConnected: () => void) {
  const [state, setState] = useState<PairingState>(initial);
  const onConnectedRef = useRef(onConnected);
  onConnectedRef.current = onConnected;
  const expiresAt = useRef<number | null>(null);
  const controller = useRef<AbortController | null>(null);
  const done = useRef(false);

  const load = useCallback(
    async (renew: boolean) => {
      if (!accountId) return;
      controller.current?.abort();
      const c = new AbortController();
      controller.current = c;
      expiresAt.current = null;
      setState((s) => ({ ...s, phase: 'loading', error: null }));
      try {
        const res = await requestPairingCode(accountId, renew, c.signal);
        if (c.signal.aborted || done.current) return;
        expiresAt.current = new Date(res.expiresAt).getTime();
        setState({
          phase: 'shown',
          code: res.code,
          secondsLeft: Math.ceil((expiresAt.current - Date.now()) / 1000),
          error: null,
        });
      } catch (err) {
        if (c.signal.aborted || done.current) return;
        const error = err instanceof ApiError && err.serverMessage ? err.serverMessage : PAIRING_TEXT.failed;
        setState((s) => ({ ...s, phase: 'error', error }));
      }
    },
    [accountId],
  );

  useEffect(() => {
    if (!accountId) return;
    done.current = false;
    setState(initial);
    void load(false);
    const tick = setInterval(() => {
      const at = expiresAt.current;
      if (at === null) return;
      const left = Math.ceil((at - Date.now()) / 1000);
      setState((s) =>
        s.phase !== 'shown'
          ? s
          : left <= 0
            ? { ...s, phase: 'expired', secondsLeft: 0 }
            : { ...s, secondsLeft: left },
      );
    }, 1_000);
    let closeTimer: ReturnType<typeof setTimeout> | null = null;
    const poll = setInterval(async () => {
      try {
        const status = await apiFetch<StatusResponse>(`/api/${encodeURIComponent(accountId)}/status`);
        if (!status.connected || done.current) return;
        done.current = true;
        controller.current?.abort();
        clearInterval(poll);
        clearInterval(tick);
        setState((s) => ({ ...s, phase: 'connected', error: null }));
        closeTimer = setTimeout(() => onConnectedRef.current(), QR_TIMING.closeAfterConnectMs);
      } catch (err) {
        console.error('Status poll failed:', err);
      }
    }, QR_TIMING.statusPollMs);
    return () => {
      done.current = true;
      controller.current?.abort();
      clearInterval(tick);
      clearInterval(poll);
      if (closeTimer) clearTimeout(closeTimer);
    };
  }, [accountId, load]);

  return { state, renew: () => void load(true) };
}
