import { Button, Group, List, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { checkPhone, type PersonalData } from '@wa/contract';
import { type FormEvent, useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { messageOf } from '../../lib/api.ts';
import { DEFAULT_COUNTRY_CODE } from '../../lib/csv-contacts.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { useMeta } from '../auth/api/get-meta.ts';
import { useErasePerson } from './api/erase-person.ts';
import { useDownloadPersonalData, usePersonalData } from './api/personal-data.ts';

const plural = (n: number, one: string) => `${formatNumber(n)} ${one}${n === 1 ? '' : 's'}`;

/**
 * Data requests (India's DPDP Act): what is held about one number, shown and
 * downloaded (JSON or CSV), and its erasure after a confirmation. Each is in the audit log.
 */
export function PersonalDataSection() {
  const cc = useMeta().data?.defaultCountryCode ?? DEFAULT_COUNTRY_CODE;
  const [phone, setPhone] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [erasedText, setErasedText] = useState<string | null>(null);
  const read = usePersonalData();
  const download = useDownloadPersonalData();
  const erase = useErasePerson();
  const checked = checkPhone(phone, cc);
  const valid = 'number' in checked;
  // The number as the server keeps it (docs/decisions.md, Phone numbers): also the downloaded file's name.
  const number = 'number' in checked ? checked.number : phone.trim();
  const data: PersonalData | undefined = read.data;

  const show = (e: FormEvent) => {
    e.preventDefault();
    setErasedText(null);
    if (valid) read.mutate(number);
  };
  const confirmErase = () =>
    erase.mutate(number, {
      onSuccess: (r) => {
        setConfirming(false);
        read.reset();
        setErasedText(
          `Erased: removed from ${plural(r.lists, 'list')}; in ${plural(r.messages, 'past message')} a token stands for the number, and sends leave it out.`,
        );
      },
    });

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-label="Data requests">
      <Stack gap="sm">
        <Title order={3} size="h4">
          Data requests
        </Title>
        <Text size="sm" c="dimmed">
          When a person asks what you hold about them, or asks you to erase it: their lists and fields, the
          consent recorded, their opt-out, and every message sent to them.
        </Text>
        <Stack gap="xs" component="form" onSubmit={show}>
          <TextInput
            label="Phone number"
            placeholder="98765 43210"
            value={phone}
            onChange={(e) => setPhone(e.currentTarget.value)}
            maw={320}
          />
          <Group gap="xs">
            <Button type="submit" disabled={!valid} loading={read.isPending}>
              Show data
            </Button>
            <Button
              variant="light"
              disabled={!valid}
              loading={download.isPending && download.variables?.format === 'json'}
              onClick={() => download.mutate({ phone: number, format: 'json' })}
            >
              Download JSON
            </Button>
            <Button
              variant="light"
              disabled={!valid}
              loading={download.isPending && download.variables?.format === 'csv'}
              onClick={() => download.mutate({ phone: number, format: 'csv' })}
            >
              Download CSV
            </Button>
            <Button
              variant="light"
              color="red"
              disabled={!valid}
              onClick={() => {
                erase.reset();
                setConfirming(true);
              }}
            >
              Erase this number
            </Button>
          </Group>
        </Stack>
        <ErrorAlert error={read.isError ? messageOf(read.error) : null} />
        <ErrorAlert error={download.isError ? messageOf(download.error) : null} />
        {erasedText && (
          <Text size="sm" c="green.8" role="status" aria-label="Erasure result">
            {erasedText}
          </Text>
        )}
        {data && (
          <Stack gap={4} role="region" aria-label={`Data held about ${data.phone}`}>
            <Text size="sm" fw={600}>
              {data.phone}
              {data.erased ? ' (erased before)' : ''}
            </Text>
            <List size="sm" spacing={2}>
              {data.lists.map((l) => (
                <List.Item key={l.listId}>
                  {`List '${l.name}'`}
                  {l.fields.name ? `, name ${l.fields.name}` : ''}
                  {l.consent
                    ? `; consent: ${l.consent.purpose ?? 'not stated'} (${l.consent.source === 'group' ? `group ${l.consent.groupName ?? ''}` : (l.consent.fileName ?? 'import')}, by ${l.consent.by}, ${formatDateTime(l.consent.at)})`
                    : '; no consent recorded'}
                </List.Item>
              ))}
              {data.lists.length === 0 && <List.Item>On no list</List.Item>}
              <List.Item>
                {data.optOut
                  ? `Opted out ${formatDateTime(data.optOut.at)}${data.optOut.message ? `: “${data.optOut.message}”` : ` (${data.optOut.source})`}`
                  : 'Not opted out'}
              </List.Item>
              <List.Item>{plural(data.messages.length, 'message')} sent or queued</List.Item>
            </List>
          </Stack>
        )}
      </Stack>
      <AppModal title="Erase this number?" opened={confirming} onClose={() => setConfirming(false)}>
        <Stack gap="sm">
          <Text size="sm">
            {number} leaves every contact list and the opt-out list. A token that cannot be turned back into
            the number takes its place in past jobs (totals stay) and keeps it out of new sends. This cannot
            be undone.
          </Text>
          <ErrorAlert error={erase.isError ? messageOf(erase.error) : null} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
            <Button color="red" loading={erase.isPending} onClick={confirmErase}>
              Erase
            </Button>
          </Group>
        </Stack>
      </AppModal>
    </Paper>
  );
}
