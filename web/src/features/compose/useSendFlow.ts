import { useQueryClient } from '@tanstack/react-query';
import type { SendBody } from '@wa/contract';
import { type Dispatch, useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { needsConfirmation } from '../../components/charge/confirm-pref.ts';
import { errorText, newIdempotencyKey } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useInvalidate } from '../../lib/mutation.ts';
import { userDetailsQuery } from '../auth/api/get-user-details.ts';
import { policyKeys } from '../instances/api/get-account-policy.ts';
import { getJobDetails } from '../jobs/api/get-job-details.ts';
import { messageJobKeys } from '../jobs/api/keys.ts';
import { sendMessage } from './api/send-message.ts';
import {
  type Audience,
  buildSendBody,
  type ComposeAction,
  composeReducer,
  emptyCompose,
  type FieldProblem,
  fieldOfProblem,
  type MediaPayload,
  type MessageKind,
  mediaOf,
  validateSend,
} from './compose-form.ts';
import type { ProgressView } from './SendingProgress.tsx';
import { isFinal, resultBanner, SENDING_TEXTS, type SendBanner } from './send-result.ts';

/**
 * The first `limit` recipients of a target (numbers given one by one, then rows with fields);
 * contact lists are sent whole, so a page offers fewer only without them.
 */
export function firstOf(target: SendTarget, limit: number | null): SendTarget {
  if (limit === null) return target;
  const chatIds = (target.chatIds ?? []).slice(0, limit);
  const recipients = (target.recipients ?? []).slice(0, Math.max(0, limit - chatIds.length));
  return { ...target, chatIds, ...(target.recipients ? { recipients } : {}) };
}

/** The body with its recipients; empty lists are left out. */
function withTarget(body: SendBody, target: SendTarget): SendBody {
  const out: SendBody = { ...body, chatIds: target.chatIds ?? [] };
  if (target.recipients?.length) out.recipients = target.recipients;
  if (target.contactListIds?.length) out.contactListIds = target.contactListIds;
  if (target.sessionIds?.length) out.sessionIds = target.sessionIds;
  return out;
}

/** Job poll after Send Now (docs/decisions.md, Kept to the letter). */
export const JOB_POLL_MS = 2_000;

type ActiveJob = { id: string; view: ProgressView };

/** Who receives a send: chat ids, and for individuals numbers with fields and contact lists. */
export type SendTarget = Pick<SendBody, 'chatIds' | 'recipients' | 'contactListIds' | 'sessionIds'>;

/**
 * The sending logic both send pages share: validation in the spec's order,
 * Send Now with the 2-second job poll and its result message, and scheduling. A problem with
 * the message is shown beside its control (`fieldError`); the rest in the banner beside the
 * send buttons, which takes the focus (`bannerFocus` counts the times it should).
 */
export function useSendFlow(opts: {
  audience: Audience;
  accountId: string | null;
  /** How many recipients are chosen (rows and lists), for the spec's first check. */
  selectedCount: number;
  /** The recipients, gathered only when a send is made (a CSV may hold a million numbers). */
  target: () => SendTarget;
  /** Clears the page's selection once a job sent now ends or a schedule is accepted. */
  onSelectionReset: () => void;
}) {
  const queryClient = useQueryClient();
  const invalidate = useInvalidate();
  const [compose, dispatch] = useReducer(composeReducer, undefined, () => emptyCompose('text'));
  const [banner, setBanner] = useState<SendBanner | null>(null);
  const [bannerFocus, setBannerFocus] = useState(0);
  const [fieldError, setFieldError] = useState<FieldProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const [active, setActive] = useState<ActiveJob | null>(null);
  const [lastJobId, setLastJobId] = useState<string | null>(null);
  const [scheduleOpen, setScheduleOpen] = useState(false);
  const [scheduleError, setScheduleError] = useState<string | null>(null);
  const [scheduling, setScheduling] = useState(false);
  /** Numbers the last send left out because they opted out (not charged). */
  const [optedOut, setOptedOut] = useState<string[]>([]);
  /** Left out for want of consent ('Send one-to-one only to contacts with consent'). */
  const [noConsent, setNoConsent] = useState<string[]>([]);
  const [confirmOpen, setConfirmOpen] = useState(false);

  const resetSelection = useRef(opts.onSelectionReset);
  resetSelection.current = opts.onSelectionReset;

  /** A result or refusal: shown in the banner, which the page scrolls to and focuses. */
  const announce = useCallback((next: SendBanner) => {
    setBanner(next);
    setBannerFocus((n) => n + 1);
  }, []);
  /** An edit of the message clears the problem shown beside its control. */
  const edit: Dispatch<ComposeAction> = useCallback((action) => {
    dispatch(action);
    setFieldError(null);
  }, []);

  const refreshBalance = useCallback(() => {
    // Balance fetch failures are only logged (docs/decisions.md, Kept to the letter).
    queryClient.fetchQuery(userDetailsQuery()).catch((err) => console.error('Balance refresh failed', err));
    // The jobs, and today's count against the account's limits for the next send's forecast.
    void invalidate([messageJobKeys.all, policyKeys.all]);
  }, [queryClient, invalidate]);

  const activeId = active?.id ?? null;
  useEffect(() => {
    if (!activeId) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const controller = new AbortController();
    const tick = async () => {
      try {
        const { job } = await getJobDetails(activeId, {
          detailsLimit: 0,
          media: false,
          signal: controller.signal,
        });
        if (stopped) return;
        setActive({ id: activeId, view: job });
        if (isFinal(job.status)) {
          setActive(null);
          setBusy(false);
          dispatch({ type: 'reset' });
          resetSelection.current();
          announce(resultBanner(job, opts.audience));
          refreshBalance();
          return;
        }
      } catch (err) {
        if (stopped) return;
        // Polling errors are only logged; polling goes on.
        console.error('Polling the job failed', err);
      }
      timer = setTimeout(tick, JOB_POLL_MS);
    };
    timer = setTimeout(tick, JOB_POLL_MS);
    return () => {
      stopped = true;
      controller.abort();
      clearTimeout(timer);
    };
  }, [activeId, opts.audience, refreshBalance, announce]);

  const changeKind = (kind: MessageKind) => {
    dispatch({ type: 'kind', kind });
    setBanner(null);
    setFieldError(null);
  };

  const mediaPayload = () => mediaOf(compose);

  /** Checks 1–4 and the account; shows the first problem beside its control, else in the banner. */
  const check = (): boolean => {
    const problem = validateSend(compose, opts.selectedCount);
    if (problem) {
      const field = fieldOfProblem(problem);
      if (field) {
        setBanner(null);
        setFieldError({ field, text: problem });
      } else announce({ color: 'red', text: problem });
      return false;
    }
    setFieldError(null);
    if (!opts.accountId) {
      announce({ color: 'red', text: SENDING_TEXTS.noSession });
      return false;
    }
    return true;
  };

  /** Send Now: after the checks, the confirmation with the cost unless turned off for this size. */
  const sendNow = async () => {
    if (busy || !check() || !opts.accountId) return;
    if (needsConfirmation(opts.selectedCount)) {
      setConfirmOpen(true);
      return;
    }
    await send();
  };

  /** `limit`: the user chose to send to the first N only (the confirmation's 'send fewer'). */
  const send = async (limit: number | null = null) => {
    if (busy || !opts.accountId) return;
    const key = newIdempotencyKey();
    setBusy(true);
    setBanner(null);
    setOptedOut([]);
    let media: MediaPayload | null;
    try {
      media = await mediaPayload();
    } catch {
      setBusy(false);
      setFieldError({ field: 'file', text: 'Error reading the file' });
      return;
    }
    try {
      const body = withTarget(
        buildSendBody(compose, [], opts.audience, media),
        firstOf(opts.target(), limit),
      );
      const res = await sendMessage(opts.accountId, opts.audience, body, key);
      setLastJobId(res.jobId);
      setOptedOut(res.skipped?.optedOut ?? []);
      setNoConsent(res.skipped?.noConsent ?? []);
      // The credits were taken on acceptance: the balance shows it now, not when the job ends.
      refreshBalance();
      // The bulk page says so as soon as the job is accepted (and again when it completes).
      if (opts.audience === 'individuals') setBanner({ color: 'blue', text: SENDING_TEXTS.bulkInitiated });
      setActive({
        id: res.jobId,
        view: {
          // The id lets the progress panel offer Pause before the first poll.
          id: res.jobId,
          status: 'pending',
          progress: { completed: 0, total: res.totalChats, percentComplete: 0 },
          results: { success: 0, failed: 0, delivered: 0, read: 0 },
          elapsedTimeMs: 0,
        },
      });
    } catch (err) {
      setBusy(false);
      announce({ color: 'red', text: errorText(err, SENDING_TEXTS.sendFailed, 'Error sending message') });
    }
  };

  /** Opening the schedule modal runs the content checks first (docs/decisions.md, Kept to the letter). */
  const openSchedule = () => {
    if (busy || !check()) return;
    setScheduleError(null);
    setScheduleOpen(true);
  };

  /** `repeat`: the schedule modal's repeat choice (each occurrence its own job). */
  const schedule = async (localValue: string, repeat: SendBody['repeat'] = null) => {
    if (!opts.accountId) return;
    const at = new Date(localValue);
    const key = newIdempotencyKey();
    setScheduling(true);
    setScheduleError(null);
    setOptedOut([]);
    try {
      const media = await mediaPayload();
      const body = {
        ...withTarget(buildSendBody(compose, [], opts.audience, media, at.toISOString()), opts.target()),
        ...(repeat ? { repeat } : {}),
      };
      const res = await sendMessage(opts.accountId, opts.audience, body, key);
      setLastJobId(res.jobId);
      setOptedOut(res.skipped?.optedOut ?? []);
      setNoConsent(res.skipped?.noConsent ?? []);
      setScheduleOpen(false);
      dispatch({ type: 'reset' });
      // So the same message is not scheduled twice by accident.
      resetSelection.current();
      announce({
        color: 'green',
        text: `Message scheduled successfully! Scheduled for ${formatDateTime(at)}`,
      });
      refreshBalance();
    } catch (err) {
      setScheduleError(errorText(err, SENDING_TEXTS.sendFailed, 'Error sending message'));
    } finally {
      setScheduling(false);
    }
  };

  return {
    compose,
    dispatch: edit,
    changeKind,
    banner,
    bannerFocus,
    fieldError,
    /** A refused file (over 16 MB), shown beside the file button. */
    fileError: (text: string) => setFieldError({ field: 'file', text }),
    busy,
    progress: active?.view ?? null,
    jobExists: lastJobId !== null,
    /** The last send's job, once accepted. */
    lastJobId,
    optedOut,
    noConsent,
    /** Takes the last send's result off the page (a new list was uploaded). */
    clearResult: () => {
      if (busy) return;
      setBanner(null);
      setOptedOut([]);
      setNoConsent([]);
      setLastJobId(null);
    },
    sendNow,
    openSchedule,
    schedule,
    confirmModal: {
      opened: confirmOpen,
      onCancel: () => setConfirmOpen(false),
      onConfirm: (count: number) => {
        setConfirmOpen(false);
        void send(count < opts.selectedCount ? count : null);
      },
    },
    scheduleModal: {
      opened: scheduleOpen,
      onClose: () => setScheduleOpen(false),
      busy: scheduling,
      serverError: scheduleError,
    },
  };
}
