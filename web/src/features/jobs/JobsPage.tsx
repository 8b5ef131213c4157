import { Alert, Badge, Button, Group, Paper, Stack, Tabs, Text, Title } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { MessageJob } from '@wa/contract';
import { useMemo, useState } from 'react';
import {
  deleteJob,
  JOBS_REFRESH_MS,
  messageJobsQuery,
  retryJob,
  useMessageJobs,
} from '../../api/message-jobs.ts';
import { useSessions } from '../../api/sessions.ts';
import { useBalance, userDetailsQuery } from '../../api/user-details.ts';
import { BalanceBubble } from '../../components/BalanceBubble.tsx';
import type { Banner } from '../../components/compose/send-result.ts';
import { errorText } from '../../components/compose/send-result.ts';
import { formatNumber } from '../../lib/format.ts';
import { storage } from '../../lib/storage.ts';
import { ConfirmDeleteModal } from './ConfirmDeleteModal.tsx';
import { JobDetailsModal } from './JobDetailsModal.tsx';
import { JobsTable } from './JobsTable.tsx';
import { emptyJobsText, filterJobs, JOB_FILTERS, type JobFilter, retryRefusal } from './jobs-view.ts';

/** Message Jobs (/jobs, spec section 2). Jobs and balance refresh every 15001 ms. */
export default function JobsPage() {
  const queryClient = useQueryClient();
  const userId = storage.userId();
  const jobs = useMessageJobs(userId, JOBS_REFRESH_MS);
  useQuery({ ...userDetailsQuery(), refetchInterval: JOBS_REFRESH_MS });
  const balance = useBalance();
  const sessions = useSessions();

  const [filter, setFilter] = useState<JobFilter>('all');
  const [banner, setBanner] = useState<Banner | null>(null);
  const [viewId, setViewId] = useState<string | null>(null);
  const [deleteId, setDeleteId] = useState<string | null>(null);
  const [retryingId, setRetryingId] = useState<string | null>(null);
  const [retryError, setRetryError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<string | null>(null);

  const all = jobs.data?.jobs ?? [];
  const count = jobs.data?.total ?? all.length;
  const shown = useMemo(() => filterJobs(all, filter), [all, filter]);

  const refreshAll = () => {
    queryClient.invalidateQueries({ queryKey: messageJobsQuery(userId).queryKey });
    queryClient.fetchQuery(userDetailsQuery()).catch((err) => console.error('Balance refresh failed', err));
  };

  const retry = async (job: Pick<MessageJob, 'id' | 'sessionId' | 'results'>) => {
    const list = sessions.data ?? [];
    const refusal = retryRefusal(job.results.failed, balance, list.length > 0);
    const fail = (text: string) => {
      if (viewId) setRetryError(text);
      else setBanner({ color: 'red', text });
    };
    if (refusal) return fail(refusal);
    // The job's own session when it still exists, else the one the user works on.
    const sessionId =
      list.find((s) => s.sessionId === job.sessionId)?.sessionId ??
      list.find((s) => s.sessionId === storage.currentSessionId())?.sessionId ??
      list[0].sessionId;
    setRetryingId(job.id);
    setRetryError(null);
    try {
      const res = await retryJob(job.id, sessionId);
      setViewId(null);
      setBanner({ color: 'green', text: res.message });
      refreshAll();
    } catch (err) {
      fail(errorText(err, 'Failed to retry messages', 'Error retrying messages'));
    } finally {
      setRetryingId(null);
    }
  };

  const confirmDelete = async () => {
    if (!deleteId) return;
    setDeleting(true);
    setDeleteError(null);
    try {
      const res = await deleteJob(deleteId);
      const gone = deleteId;
      queryClient.setQueryData(messageJobsQuery(userId).queryKey, (old) =>
        old
          ? { ...old, jobs: old.jobs.filter((j) => j.id !== gone), total: Math.max(0, old.total - 1) }
          : old,
      );
      setDeleteId(null);
      setViewId(null);
      setBanner({ color: 'green', text: res.message });
      refreshAll();
    } catch (err) {
      setDeleteError(errorText(err, 'Failed to delete job', 'Error deleting job'));
    } finally {
      setDeleting(false);
    }
  };

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Group gap="xs">
          <Title order={2}>Message Jobs</Title>
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
              <Tabs.Tab key={f.value} value={f.value}>
                {f.label}
              </Tabs.Tab>
            ))}
          </Tabs.List>
        </Tabs>
        {jobs.isLoading ? (
          <Text c="dimmed" py="md">
            Loading jobs...
          </Text>
        ) : shown.length === 0 ? (
          <Text c="dimmed" py="md">
            {emptyJobsText(filter)}
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
            retryingId={retryingId}
          />
        )}
      </Paper>
      <JobDetailsModal
        jobId={viewId}
        onClose={() => setViewId(null)}
        onRetry={retry}
        retrying={!!retryingId}
        error={retryError}
      />
      <ConfirmDeleteModal
        jobId={deleteId}
        onCancel={() => setDeleteId(null)}
        onConfirm={confirmDelete}
        busy={deleting}
        error={deleteError}
      />
    </Stack>
  );
}
