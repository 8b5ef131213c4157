import { Alert, Button, Group, Loader, Stack, Text, Textarea } from '@mantine/core';
import { type MessageJob, parsePoll, phoneOfJid, pollLimitProblem, SEND_TEXTS } from '@wa/contract';
import { useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { ChargeConfirmModal } from '../../components/charge/ChargeConfirmModal.tsx';
import { needsConfirmation } from '../../components/charge/confirm-pref.ts';
import { useCharge } from '../../components/charge/useCharge.ts';
import { ScheduleDateField } from '../../components/ScheduleDateField.tsx';
import { messageOf } from '../../lib/api.ts';
import { priceKindOf } from '../../lib/capabilities.ts';
import { todayValue, toLocalDateTime } from '../../lib/date-text.ts';
import { checkFileSize, readFileBase64 } from '../../lib/file-body.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { recipientLines } from '../../lib/typed-lines.ts';
import { useCreditPrices } from '../compose/api/credit-prices.ts';
import { useAccounts } from '../instances/api/get-accounts.ts';
import { useEditJob } from './api/edit-job.ts';
import { useJobDetails } from './api/get-job-details.ts';
import { type EditedPoll, EditFileField, EditGroupsPicker, EditPollFields } from './EditJobFields.tsx';
import { editCostText } from './jobs-view.ts';

const pad = (n: number) => String(n).padStart(2, '0');
/** A job's time as the date field's `YYYY-MM-DD HH:mm:ss`, in the browser's zone. */
const fieldValue = (iso: string | null) => {
  if (!iso) return '';
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:00`;
};

/**
 * 'Edit job': the time, the text (a file's caption and the file, a poll's question and options)
 * and the recipients (groups picked by name, or phone numbers) of a job that has not started. The credits held follow the recipients; the modal says how before
 * saving. An edit that adds recipients is confirmed as a send is (components/charge): the
 * confirmation takes the modal's place, and Cancel comes back to it with what was typed.
 * `onSaved` gets the server's answer for the page's banner.
 */
export function EditJobModal(props: {
  job: MessageJob;
  onClose: () => void;
  onSaved: (text: string) => void;
}) {
  const job = props.job;
  const details = useJobDetails(job.id);
  const edit = useEditJob();
  // The page mounts the modal anew for each job (`key`): these start from that job.
  const [when, setWhen] = useState(() => fieldValue(job.scheduledTime));
  const [text, setText] = useState(job.messageContent);
  const [recipients, setRecipients] = useState<string | null>(null);
  const [groupIds, setGroupIds] = useState<string[] | null>(null);
  const [poll, setPoll] = useState<EditedPoll>(() => {
    const p = parsePoll(job.messageContent);
    return {
      question: p?.pollName ?? '',
      options: p?.pollOptions ?? ['', ''],
      multi: p?.allowMultipleAnswers ?? false,
    };
  });
  const [file, setFile] = useState<File | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [min] = useState(todayValue);
  const loaded = details.data?.job;
  // Every recipient is in the answer unless the job is larger than one page of it.
  const allShown = !!loaded && loaded.detailsTotal <= loaded.details.length;
  const groups = job.audience === 'groups';
  const shownRecipients =
    recipients ??
    (groups ? '' : (loaded?.details ?? []).map((d) => phoneOfJid(d.chatId) ?? d.chatId).join('\n'));
  const shownGroups = groupIds ?? (groups ? (loaded?.details ?? []).map((d) => d.chatId) : []);
  const knownNames = new Map((loaded?.details ?? []).map((d) => [d.chatId, d.chatName]));
  const before = job.progress.total;
  const lines = groups ? shownGroups : recipientLines(shownRecipients);
  const after = allShown ? lines.length : before;
  const added = Math.max(0, after - before);
  const [confirming, setConfirming] = useState(false);
  const local = when ? toLocalDateTime(when) : '';
  const account = (useAccounts().data ?? []).find((s) => s.sessionId === job.sessionId);
  const kind = priceKindOf(account);
  const price = useCreditPrices()[kind];
  const charge = useCharge({
    accountId: job.sessionId,
    count: added,
    audience: job.audience,
    shares: [{ kind, price, recipients: added }],
    startsAt: local ? formatDateTime(new Date(local)) : null,
    notes: [
      `The job then goes to ${formatNumber(after)} ${after === 1 ? 'recipient' : 'recipients'}; the credits of the ${formatNumber(before)} it had are held already.`,
    ],
  });

  /** The checks, then the confirmation when the edit adds recipients, then the save. */
  const save = async () => {
    const at = local ? new Date(local) : null;
    if (job.status === 'scheduled' && !at) return setProblem('Choose the time to send it');
    if (at && (Number.isNaN(at.getTime()) || at.getTime() <= Date.now()))
      return setProblem('The time must be in the future');
    if (job.messageType === 'text' && !text.trim()) return setProblem('Write the message');
    const options = poll.options.map((o) => o.trim()).filter(Boolean);
    if (job.messageType === 'poll') {
      if (!poll.question.trim()) return setProblem(SEND_TEXTS.noPollQuestion);
      if (options.length < 2) return setProblem(SEND_TEXTS.fewPollOptions);
      const limit = pollLimitProblem(poll.question, options);
      if (limit) return setProblem(limit);
    }
    const tooLarge = file ? checkFileSize(file) : null;
    if (tooLarge) return setProblem(tooLarge);
    if (allShown && lines.length === 0) return setProblem('Give at least one recipient');
    setProblem(null);
    if (added > 0 && !confirming && needsConfirmation(added)) return setConfirming(true);
    const message =
      job.messageType === 'poll'
        ? {
            poll: {
              pollName: poll.question,
              pollOptions: options,
              options: { allowMultipleAnswers: poll.multi },
            },
          }
        : { content: text };
    const media = file
      ? {
          data: await readFileBase64(file),
          mime: file.type || 'application/octet-stream',
          fileName: file.name,
        }
      : {};
    edit.mutate(
      {
        jobId: job.id,
        body: {
          ...(at ? { scheduleTime: at.toISOString() } : {}),
          ...message,
          ...media,
          ...(allShown ? { chatIds: lines } : {}),
        },
      },
      {
        onSuccess: (res) => {
          const left = res.skipped?.optedOut.length
            ? ` (${formatNumber(res.skipped.optedOut.length)} opted out, left out)`
            : '';
          props.onSaved(`${res.message}: ${formatNumber(res.total)} recipients${left}`);
        },
      },
    );
  };

  if (confirming)
    return (
      <ChargeConfirmModal
        opened
        title="Confirm edit"
        action="Save changes"
        charge={charge}
        busy={edit.isPending}
        error={edit.isError ? messageOf(edit.error) : null}
        onCancel={() => {
          edit.reset();
          setConfirming(false);
        }}
        onConfirm={() => void save()}
      />
    );

  return (
    <AppModal opened onClose={props.onClose} title="Edit job" size="lg">
      <Stack gap="sm">
        <ScheduleDateField
          label="Schedule time"
          description={
            job.status === 'paused' ? 'A paused job given a time is scheduled again for it' : undefined
          }
          calendarLabel="Pick the day in a calendar"
          withTime
          minDate={min}
          value={when}
          onChange={(v) => {
            setWhen(v);
            setProblem(null);
          }}
        />
        {job.messageType === 'poll' ? (
          <EditPollFields value={poll} onChange={setPoll} />
        ) : (
          <Textarea
            label={job.messageType === 'media' ? 'Caption' : 'Message'}
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            autosize
            minRows={3}
            maxRows={10}
          />
        )}
        {job.messageType === 'media' && (
          <EditFileField current={job.fileName ?? 'the file it had'} chosen={file} onChoose={setFile} />
        )}
        {details.isLoading ? (
          <Group gap="xs">
            <Loader size="xs" aria-label="Loading the recipients" />
            <Text size="sm">Loading the recipients…</Text>
          </Group>
        ) : allShown && groups ? (
          <EditGroupsPicker
            accountId={job.sessionId}
            value={shownGroups}
            knownNames={knownNames}
            onChange={setGroupIds}
          />
        ) : allShown ? (
          <Textarea
            label="Phone numbers (one a line)"
            value={shownRecipients}
            onChange={(e) => setRecipients(e.currentTarget.value)}
            autosize
            minRows={3}
            maxRows={10}
          />
        ) : (
          <Text size="sm" c="dimmed">
            This job has more recipients than can be edited here: its time and text can change.
          </Text>
        )}
        <Text size="sm" fw={600} role="status">
          {`${formatNumber(after)} ${after === 1 ? 'recipient' : 'recipients'} · ${editCostText(before, after)}`}
        </Text>
        {(problem || edit.isError) && (
          <Alert color="red" variant="light" role="alert">
            {problem ?? messageOf(edit.error)}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose} disabled={edit.isPending}>
            Cancel
          </Button>
          <Button onClick={() => void save()} loading={edit.isPending}>
            Save changes
          </Button>
        </Group>
      </Stack>
    </AppModal>
  );
}
