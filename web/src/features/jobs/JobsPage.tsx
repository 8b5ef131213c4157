import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Group,
  Paper,
  Stack,
  Tabs,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconRefresh, IconSearch } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { MessageJob } from '@wa/contract';
import { useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { BalanceBubble } from '../../components/BalanceBubble.tsx';
import { ChargeConfirmModal } from '../../components/charge/ChargeConfirmModal.tsx';
import { needsConfirmation } from '../../components/charge/confirm-pref.ts';
import { useCharge } from '../../components/charge/useCharge.ts';
import { LoadMoreButton } from '../../components/PageHeader.tsx';
import { errorText } from '../../lib/api.ts';
import type { Banner } from '../../lib/banner.ts';
import { priceKindOf } from '../../lib/capabilities.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { useInvalidate } from '../../lib/mutation.ts';
import { storage } from '../../lib/storage.ts';
import { useBalance, userDetailsQuery } from '../auth/api/get-user-details.ts';
import { useCreditPrices } from '../compose/api/credit-prices.ts';
import { useAccounts } from '../instances/api/get-accounts.ts';
import { useCancelSeries } from './api/cancel-series.ts';
import { useDeleteJob } from './api/delete-job.ts';
import { JOBS_REFRESH_MS, useJobsList } from './api/get-jobs.ts';
import { useDeliveryUnknown, useRetryable } from './api/get-retryable.ts';
import { messageJobKeys } from './api/keys.ts';
import { usePauseJob } from './api/pause-job.ts';
import { useResumeJob } from './api/resume-job.ts';
import { useRetryJob } from './api/retry-job.ts';
import { ConfirmDeleteModal } from './ConfirmDeleteModal.tsx';
import { EditJobModal } from './EditJobModal.tsx';
import { JobDetailsModal } from './JobDetailsModal.tsx';
import { JobsTable } from './JobsTable.tsx';
import {
  emptyJobsText,
  JOB_FILTERS,
  type JobFilter,
  jobsWithFailures,
  messagePreview,
  retryRefusal,
  scheduledFor,
  tabCount,
  tabHint,
} from './jobs-view.ts';
import { retryEndBanner, useRetryWatch } from './useRetryWatch.ts';

/**
 * Message Jobs (/jobs). The server pages, filters and counts: each tab asks for
 * its status and the search, one page of 100 at a time ('Load more jobs'), and the tabs' counts
 * come from the answer's summary. Jobs and balance refresh every 15001 ms. `?job=<id>` opens
 * that job's details.
 */
export default function JobsPage() {
  const queryClient = useQueryClient();
  const invalidate = useInvalidate();
  const userId = storage.userId();
  const [filter, setFilter] = useState<JobFilter>('all');
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 300);
  const jobs = useJobsList(userId, { status: filter, q }, JOBS_REFRESH_MS);
  useQuery({ ...userDetailsQuery(), refetchInterval: JOBS_REFRESH_MS });
  const balance = useBalance();
  const accounts = useAccounts();
  const retryCall = useRetryJob();
  const deleteCall = useDeleteJob();

  const [banner, setBanner] = useState<Banner | null>(null);
  const [editing, setEditing] = useState<MessageJob | null>(null);
  // `#/jobs?job=<id>` opens that job's details (the Inbox links each message to its job).
  const [params] = useSearchParams();
  const [viewId, setViewId] = useState<string | null>(() => params.get('job'));
  const [deleteId, setDeleteId] = useState<string | null>(null);
  const [retryError, setRetryError] = useState<string | null>(null);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  // 'Retrying N failed messages' gives way to the outcome once the retry is over.
  const retryBanner = useRef<Banner | null>(null);
  const watchRetry = useRetryWatch((job) =>
    setBanner((shown) => (shown === retryBanner.current ? retryEndBanner(job) : shown)),
  );

  const pause = usePauseJob();
  const resume = useResumeJob();
  const cancelSeries = useCancelSeries();
  const controllingId = pause.isPending
    ? pause.variables
    : resume.isPending
      ? resume.variables
      : cancelSeries.isPending
        ? cancelSeries.variables
        : null;
  const control = (mutation: typeof pause, fallback: string) => (job: MessageJob) =>
    mutation.mutate(job.id, {
      onSuccess: (res) => setBanner({ color: 'green', text: res.message }),
      onError: (err) => setBanner({ color: 'red', text: errorText(err, fallback, fallback) }),
    });

  // While a tab's own rows load, the previous tab's rows are not shown as if they were its own.
  const rowsOf = useRef<JobFilter>(filter);
  if (!jobs.isPlaceholderData) rowsOf.current = filter;
  const tabLoading = jobs.isLoading || (jobs.isPlaceholderData && rowsOf.current !== filter);

  const pages = jobs.data?.pages;
  const shown = useMemo(() => pages?.flatMap((p) => p.jobs) ?? [], [pages]);
  const first = pages?.[0];
  const summary = first?.summary;
  const count = summary?.jobs ?? 0;
  const total = first?.total ?? 0;

  const toDelete = shown.find((j) => j.id === deleteId);
  const withFailures = useMemo(() => jobsWithFailures(shown), [shown]);
  const askedJobs = viewId && !withFailures.includes(viewId) ? [...withFailures, viewId] : withFailures;
  const retryable = useRetryable(userId, askedJobs);
  const deliveryUnknown = useDeliveryUnknown(userId, askedJobs);

  const refreshAll = () => {
    void invalidate([messageJobKeys.all]);
    queryClient.fetchQuery(userDetailsQuery()).catch((err) => console.error('Balance refresh failed', err));
  };

  /** A retry waiting for the user's yes: the job, the account that retries it, how many it retries. */
  const [retrying, setRetrying] = useState<{
    job: Pick<MessageJob, 'id' | 'audience'>;
    accountId: string;
    count: number;
    /** Of `count`, the failures whose delivery is unknown: sent again only when `copyOk`. */
    unknown: number;
  } | null>(null);
  const [copyOk, setCopyOk] = useState(false);
  const retryCount = retrying ? retrying.count - (copyOk ? 0 : retrying.unknown) : 0;
  const prices = useCreditPrices();
  const retryAccount = (accounts.data ?? []).find((s) => s.sessionId === retrying?.accountId);
  const retryPrice = prices[priceKindOf(retryAccount)];
  const retryCharge = useCharge({
    accountId: retrying?.accountId ?? null,
    count: retryCount,
    audience: retrying?.job.audience ?? 'individuals',
    shares: [{ kind: priceKindOf(retryAccount), price: retryPrice, recipients: retryCount }],
    notes: [
      'The job goes back to sending: its failed messages that a retry can fix are sent again, and it finishes again when they have gone.',
    ],
  });
  const fail = (text: string) => {
    if (viewId) setRetryError(text);
    else setBanner({ color: 'red', text });
  };

  /** Retry Failed: the checks, then the confirmation of what it takes and when it goes. */
  const retry = (job: Pick<MessageJob, 'id' | 'sessionId' | 'results' | 'audience'>) => {
    const list = accounts.data ?? [];
    const refusal = retryRefusal(job.results.failed, balance, list.length > 0);
    if (refusal) return fail(refusal);
    // The job's own account when it still exists, else the one the user works on.
    const accountId =
      list.find((s) => s.sessionId === job.sessionId)?.sessionId ??
      list.find((s) => s.sessionId === storage.currentAccountId())?.sessionId ??
      list[0].sessionId;
    setRetryError(null);
    const count = retryable[job.id] ?? job.results.failed;
    const unknown = deliveryUnknown[job.id] ?? 0;
    setCopyOk(false);
    // Failures whose delivery is unknown are asked about every time: a copy may arrive twice.
    if (unknown > 0 || needsConfirmation(count)) {
      // The confirmation takes the place of Job Details: one dialog at a time.
      setViewId(null);
      setRetrying({ job, accountId, count, unknown });
    } else runRetry(job, accountId, false);
  };

  const runRetry = (job: Pick<MessageJob, 'id'>, accountId: string, includeDeliveryUnknown: boolean) => {
    setRetrying(null);
    retryCall.mutate(
      { jobId: job.id, accountId, includeDeliveryUnknown },
      {
        onSuccess: (res) => {
          setViewId(null);
          retryBanner.current = { color: 'green', text: res.message };
          setBanner(retryBanner.current);
          watchRetry(job.id);
        },
        onError: (err) => fail(errorText(err, 'Failed to retry messages', 'Error retrying messages')),
      },
    );
  };

  const confirmDelete = () => {
    if (!deleteId) return;
    setDeleteError(null);
    deleteCall.mutate(deleteId, {
      onSuccess: (res) => {
        setDeleteId(null);
        setViewId(null);
        setBanner({ color: 'green', text: res.message });
      },
      onError: (err) => setDeleteError(errorText(err, 'Failed to delete job', 'Error deleting job')),
    });
  };

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Group gap="xs">
          <Title order={1} size="h2">
            Message Jobs
          </Title>
          <Badge size="lg" variant="light" aria-label={`${count} jobs`}>
            {formatNumber(count)}
          </Badge>
        </Group>
        <Group gap="sm">
          <BalanceBubble />
          <Button
            variant="light"
            leftSection={<IconRefresh size={16} />}
            onClick={refreshAll}
            disabled={jobs.isFetching}
          >
            {jobs.isFetching ? 'Refreshing...' : 'Refresh'}
          </Button>
        </Group>
      </Group>
      {banner && (
        <Alert
          color={banner.color}
          variant="light"
          role="status"
          aria-label="Status"
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={() => setBanner(null)}
        >
          {banner.text}
        </Alert>
      )}
      {jobs.error && (
        <Alert color="red" variant="light">
          {`Error fetching jobs: ${jobs.error.message}`}
        </Alert>
      )}
      <Paper withBorder radius="md" p="md">
        <Tabs value={filter} onChange={(v) => v && setFilter(v as JobFilter)} mb="sm">
          <Tabs.List style={{ flexWrap: 'wrap' }}>
            {JOB_FILTERS.map((f) => (
              <Tabs.Tab
                key={f.value}
                value={f.value}
                rightSection={
                  summary && (
                    <Badge size="sm" variant="light" color="gray">
                      {formatNumber(tabCount(summary, f.value))}
                    </Badge>
                  )
                }
              >
                {f.label}
              </Tabs.Tab>
            ))}
          </Tabs.List>
        </Tabs>
        {tabHint(filter) && (
          <Text size="sm" c="dimmed" mb="sm">
            {tabHint(filter)}
          </Text>
        )}
        <TextInput
          label="Search jobs"
          placeholder="A job ID or words of the message"
          leftSection={<IconSearch size={16} aria-hidden />}
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          maxLength={200}
          maw={420}
          mb="sm"
        />
        {tabLoading ? (
          <Text c="dimmed" py="md">
            Loading jobs...
          </Text>
        ) : shown.length === 0 ? (
          <Text c="dimmed" py="md">
            {q ? `No jobs match '${q}'.` : emptyJobsText(filter)}
          </Text>
        ) : (
          <JobsTable
            jobs={shown}
            onView={(job) => {
              setRetryError(null);
              setViewId(job.id);
            }}
            onRetry={retry}
            onDelete={(job) => {
              setDeleteError(null);
              setDeleteId(job.id);
            }}
            retryingId={retryCall.isPending ? (retryCall.variables?.jobId ?? null) : null}
            onPause={control(pause, 'Failed to pause the job')}
            onResume={control(resume, 'Failed to resume the job')}
            onCancelSeries={control(cancelSeries, 'Failed to cancel the series')}
            onEdit={setEditing}
            controllingId={controllingId ?? null}
            retryable={retryable}
          />
        )}
        {!tabLoading && shown.length > 0 && (
          <Group justify="space-between" mt="sm" gap="sm">
            <Text size="sm" c="dimmed" aria-live="polite">
              Showing {formatNumber(shown.length)} of {formatNumber(total)}
            </Text>
            <LoadMoreButton list={jobs} label="Load more jobs" />
          </Group>
        )}
      </Paper>
      <ChargeConfirmModal
        opened={retrying !== null}
        title="Confirm retry"
        action="Retry Failed"
        charge={retryCharge}
        onCancel={() => setRetrying(null)}
        onConfirm={() => retrying && runRetry(retrying.job, retrying.accountId, copyOk)}
      >
        {retrying && retrying.unknown > 0 && (
          <Checkbox
            checked={copyOk}
            onChange={(e) => setCopyOk(e.currentTarget.checked)}
            label={`Also send again the ${formatNumber(retrying.unknown)} whose delivery is unknown`}
            description="WhatsApp may have them already: their people may get the message twice."
          />
        )}
      </ChargeConfirmModal>
      <JobDetailsModal
        jobId={viewId}
        onClose={() => setViewId(null)}
        onRetry={retry}
        retryable={viewId ? retryable[viewId] : undefined}
        retrying={retryCall.isPending}
        error={retryError}
      />
      {editing && (
        <EditJobModal
          key={editing.id}
          job={editing}
          onClose={() => setEditing(null)}
          onSaved={(text) => {
            setEditing(null);
            setBanner({ color: 'green', text });
          }}
        />
      )}
      <ConfirmDeleteModal
        jobId={deleteId}
        preview={toDelete ? messagePreview(toDelete) : undefined}
        scheduledFor={toDelete ? scheduledFor(toDelete, formatDateTime) : null}
        unsent={toDelete ? toDelete.progress.total - toDelete.progress.completed : 0}
        endsSeries={shown.some((j) => j.id === deleteId && j.repeat?.active && j.status === 'scheduled')}
        onCancel={() => setDeleteId(null)}
        onConfirm={confirmDelete}
        busy={deleteCall.isPending}
        error={deleteError}
      />
    </Stack>
  );
}
