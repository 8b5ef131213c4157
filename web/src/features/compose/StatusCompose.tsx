import {
  Alert,
  Button,
  ColorSwatch,
  FileButton,
  Group,
  Radio,
  SegmentedControl,
  Select,
  Stack,
  Text,
  Textarea,
} from '@mantine/core';
import { IconCheck, IconUpload } from '@tabler/icons-react';
import {
  type SendResponse,
  STATUS_COLOURS,
  STATUS_FONTS,
  STATUS_TEXT_MAX,
  STATUS_TEXTS,
  type StatusSendBody,
} from '@wa/contract';
import { useState } from 'react';
import { ChargeConfirmModal } from '../../components/charge/ChargeConfirmModal.tsx';
import { needsConfirmation } from '../../components/charge/confirm-pref.ts';
import { useCharge } from '../../components/charge/useCharge.ts';
import { ScheduleDateField } from '../../components/ScheduleDateField.tsx';
import { errorText, newIdempotencyKey } from '../../lib/api.ts';
import { todayValue, toLocalDateTime } from '../../lib/date-text.ts';
import { checkFileSize, readFileBase64 } from '../../lib/file-body.ts';
import { formatNumber } from '../../lib/format.ts';
import { useContactLists } from '../contacts/api/get-contact-lists.ts';
import { useCreditPrices } from './api/credit-prices.ts';
import { usePostStatus, useStatusAudience } from './api/post-status.ts';
import { ContactListPicker } from './ContactListPicker.tsx';
import { StatusPreview } from './StatusPreview.tsx';
import { useFileUrl } from './useFileUrl.ts';

/**
 * The Status tab of Bulk Messaging: a text on a colour in a font, or an image or a
 * video with a caption, to contact lists or everyone the account has messaged; now or at a time.
 * One credit per person in the audience; the post becomes a job like any other.
 */
export function StatusCompose(props: { accountId: string }) {
  const [kind, setKind] = useState<'text' | 'media'>('text');
  const [text, setText] = useState('');
  const [colour, setColour] = useState<string>(STATUS_COLOURS[0]);
  const [font, setFont] = useState(0);
  const [file, setFile] = useState<File | null>(null);
  const [audience, setAudience] = useState<'lists' | 'everyone'>('lists');
  const [listIds, setListIds] = useState<string[]>([]);
  const [scheduleAt, setScheduleAt] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<SendResponse | null>(null);
  const [error, setError] = useState<string | null>(null);
  const lists = useContactLists();
  const everyone = useStatusAudience(props.accountId);
  const mediaUrl = useFileUrl(file);
  const poster = usePostStatus();
  const prices = useCreditPrices();
  const [confirming, setConfirming] = useState(false);
  // Who sees it, as the server counts them: opted-out contacts are left out and not charged.
  const viewers =
    audience === 'everyone'
      ? (everyone.data?.everyoneMessaged ?? 0)
      : (lists.data?.lists ?? [])
          .filter((l) => listIds.includes(l.id))
          .reduce((n, l) => n + l.count - l.optedOut, 0);
  const charge = useCharge({
    accountId: props.accountId,
    count: viewers,
    audience: 'groups',
    single: true,
    shares: [{ kind: 'linked', price: prices.linked, recipients: viewers }],
    startsAt: scheduleAt ? new Date(scheduleAt).toLocaleString('en-IN') : null,
    notes: [`${STATUS_TEXTS.seenBySavers}. Opted-out numbers are left out and not charged.`],
  });

  const submit = async () => {
    setConfirming(false);
    setError(null);
    setResult(null);
    setBusy(true);
    try {
      const body: StatusSendBody = {
        type: kind,
        content: text,
        ...(kind === 'text' ? { backgroundColor: colour, font } : {}),
        ...(kind === 'media' && file ? { data: await readFileBase64(file), mime: file.type } : {}),
        audience: audience === 'lists' ? { contactListIds: listIds } : { everyoneMessaged: true },
        ...(scheduleAt ? { scheduleTime: new Date(toLocalDateTime(scheduleAt)).toISOString() } : {}),
      };
      const answer = await poster.mutateAsync({
        accountId: props.accountId,
        body,
        idempotencyKey: newIdempotencyKey(),
      });
      setResult(answer);
      setText('');
      setFile(null);
    } catch (err) {
      setError(errorText(err, 'Failed to post the status', 'Error posting the status'));
    } finally {
      setBusy(false);
    }
  };

  const left = result?.skipped?.optedOut.length ?? 0;
  return (
    <Group align="flex-start" gap="xl" wrap="wrap">
      <Stack gap="sm" style={{ flex: 1, minWidth: 280 }}>
        <SegmentedControl
          aria-label="Status kind"
          value={kind}
          onChange={(v) => setKind(v as 'text' | 'media')}
          data={[
            { value: 'text', label: 'Text' },
            { value: 'media', label: 'Image or video' },
          ]}
          disabled={busy}
        />
        {kind === 'media' && (
          <Group gap="sm">
            <FileButton
              onChange={(f) => {
                const refused = f && checkFileSize(f);
                setError(refused || null);
                setFile(refused ? null : f);
              }}
              accept="image/jpeg,image/png,video/mp4,video/3gpp"
              disabled={busy}
            >
              {(p) => (
                <Button {...p} variant="light" leftSection={<IconUpload size={16} />}>
                  Choose image or video
                </Button>
              )}
            </FileButton>
            {file && <Text size="sm">{file.name}</Text>}
          </Group>
        )}
        <Textarea
          label={kind === 'text' ? 'Status text' : 'Caption'}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          maxLength={kind === 'text' ? STATUS_TEXT_MAX : undefined}
          autosize
          minRows={3}
          disabled={busy}
        />
        {kind === 'text' && (
          <>
            <div>
              <Text size="sm" fw={500} mb={4}>
                Background colour
              </Text>
              <Group gap={6}>
                {STATUS_COLOURS.map((c) => (
                  <ColorSwatch
                    key={c}
                    component="button"
                    type="button"
                    color={c}
                    aria-label={`Colour ${c}`}
                    aria-pressed={c === colour}
                    onClick={() => setColour(c)}
                    style={{ cursor: 'pointer', color: '#fff' }}
                  >
                    {c === colour && <IconCheck size={14} />}
                  </ColorSwatch>
                ))}
              </Group>
            </div>
            <Select
              label="Font"
              value={String(font)}
              onChange={(v) => setFont(Number(v ?? 0))}
              data={STATUS_FONTS.map((f) => ({ value: String(f.value), label: f.label }))}
              allowDeselect={false}
              disabled={busy}
            />
          </>
        )}
        <Radio.Group
          label="Who sees it"
          value={audience}
          onChange={(v) => setAudience(v as 'lists' | 'everyone')}
        >
          <Stack gap={6} mt={4}>
            <Radio value="lists" label="Contact lists" disabled={busy} />
            <Radio
              value="everyone"
              label={`Everyone this account has messaged (${formatNumber(everyone.data?.everyoneMessaged ?? 0)})`}
              disabled={busy}
            />
          </Stack>
        </Radio.Group>
        {audience === 'lists' && (
          <ContactListPicker
            lists={lists.data?.lists ?? []}
            loading={lists.isLoading}
            value={listIds}
            onChange={setListIds}
            disabled={busy}
          />
        )}
        <ScheduleDateField
          label="Schedule (optional)"
          description="Leave empty to post now"
          calendarLabel="Pick the day of the status"
          withTime
          minDate={todayValue()}
          value={scheduleAt}
          onChange={setScheduleAt}
        />
        <Text size="xs" c="dimmed">
          {STATUS_TEXTS.seenBySavers}. One credit per person in the audience.
        </Text>
        <Group>
          <Button
            onClick={() => (needsConfirmation(viewers) ? setConfirming(true) : void submit())}
            loading={busy}
          >
            {scheduleAt ? 'Schedule status' : 'Post status'}
          </Button>
        </Group>
        {error && (
          <Alert color="red" variant="light" role="alert">
            {error}
          </Alert>
        )}
        <ChargeConfirmModal
          opened={confirming}
          title="Confirm Status post"
          action={scheduleAt ? 'Schedule status' : 'Post status'}
          charge={charge}
          onCancel={() => setConfirming(false)}
          onConfirm={() => void submit()}
        />
        {result && (
          <Alert color="green" variant="light" role="status" aria-label="Status result">
            {result.message}
            {left > 0 && ` (${formatNumber(left)} opted-out left out and not charged)`}
          </Alert>
        )}
      </Stack>
      <StatusPreview
        kind={kind}
        text={text}
        backgroundColor={colour}
        font={font}
        mediaUrl={mediaUrl}
        isVideo={file?.type.startsWith('video/') ?? false}
      />
    </Group>
  );
}
