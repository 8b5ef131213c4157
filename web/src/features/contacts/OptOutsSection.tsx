import { Badge, Button, Group, Paper, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { checkPhone, type OptOut } from '@wa/contract';
import { type FormEvent, useState } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { ListTable, RowCard } from '../../components/ListTable.tsx';
import { messageOf } from '../../lib/api.ts';
import { DEFAULT_COUNTRY_CODE } from '../../lib/csv-contacts.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { useMeta } from '../auth/api/get-meta.ts';
import { useAddOptOuts } from './api/add-opt-outs.ts';
import { useOptOuts } from './api/get-opt-outs.ts';
import { useRemoveOptOut } from './api/remove-opt-out.ts';

const COLUMNS = [
  { header: 'Phone Number' },
  { header: 'Source' },
  { header: 'Message' },
  { header: 'Since' },
  { header: 'Actions' },
];
const SOURCE = { reply: 'Replied STOP', manual: 'Added by you' } as const;

const sourceBadge = (o: OptOut) => (
  <Badge variant="light" color={o.source === 'reply' ? 'orange' : 'gray'}>
    {SOURCE[o.source]}
  </Badge>
);

/** What the person wrote to opt out, in its language; a dash when added by the user. */
const wrote = (o: OptOut) =>
  o.message ? (
    <Text size="sm" lang={o.language ?? undefined}>
      {o.message}
    </Text>
  ) : (
    <Text size="sm" c="dimmed">
      —
    </Text>
  );

/** Numbers people typed or pasted: one a line, or separated by commas or semicolons. */
export const numbersOf = (text: string) =>
  text
    .split(/[\n,;]+/)
    .map((n) => n.trim())
    .filter((n) => n !== '');

/**
 * The opt-out list (docs/decisions.md, Opt-outs): numbers that replied STOP or that the user added;
 * sends leave them out uncharged. Only the user takes a number off it.
 */
export function OptOutsSection() {
  const optOuts = useOptOuts();
  const add = useAddOptOuts();
  const remove = useRemoveOptOut();
  const [text, setText] = useState('');
  const [added, setAdded] = useState<string | null>(null);
  /** Lines that are no phone number: left in the box and named, the rest added. */
  const [bad, setBad] = useState<string[]>([]);
  const cc = useMeta().data?.defaultCountryCode ?? DEFAULT_COUNTRY_CODE;
  const list = optOuts.data?.optOuts ?? [];

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setAdded(null);
    const lines = numbersOf(text);
    const good = lines.filter((n) => 'number' in checkPhone(n, cc));
    const refused = lines.filter((n) => !good.includes(n));
    setBad(refused);
    if (good.length === 0) return;
    add.mutate(good, {
      onSuccess: (res) => {
        setAdded(res.message);
        setText(refused.join('\n'));
      },
    });
  };

  const removeButton = (o: OptOut) => (
    <Button
      size="xs"
      variant="light"
      color="red"
      aria-label={`Remove ${o.phoneNumber} from opt-outs`}
      loading={remove.isPending && remove.variables === (o.address?.value ?? o.phoneNumber)}
      onClick={() => remove.mutate(o.address?.value ?? o.phoneNumber)}
    >
      Remove
    </Button>
  );

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-label="Opt-outs">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Title order={3} size="h4">
            Opt-outs
          </Title>
          <Text size="sm" c="dimmed">
            {formatNumber(list.length)} number{list.length === 1 ? '' : 's'}
          </Text>
        </Group>
        <Text size="sm" c="dimmed">
          Numbers here receive no messages: sends leave them out and do not charge for them. A contact who
          replies STOP, or stop in Hindi or another Indian language (e.g. बंद करो, roko), is added by itself,
          with the message they wrote.
        </Text>
        <Stack gap="xs" component="form" onSubmit={submit}>
          <Textarea
            label="Numbers to opt out"
            description="One a line, or separated by commas"
            placeholder="98765 43210"
            autosize
            minRows={2}
            maxRows={6}
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
          />
          <Group>
            <Button type="submit" loading={add.isPending} disabled={numbersOf(text).length === 0}>
              Add to opt-outs
            </Button>
          </Group>
          {bad.length > 0 && (
            <Text size="sm" c="red.9" role="alert">
              {`Not added, not phone numbers (${formatNumber(bad.length)}): ${bad.join(', ')}`}
            </Text>
          )}
        </Stack>
        {added && (
          <Text
            size="sm"
            c="var(--mantine-color-green-light-color)"
            role="status"
            aria-label="Opt-out result"
          >
            {added}
          </Text>
        )}
        <ErrorAlert error={add.isError ? messageOf(add.error) : null} />
        <ErrorAlert error={remove.isError ? messageOf(remove.error) : null} />
        <ErrorAlert error={optOuts.isError ? messageOf(optOuts.error) : null} />
        <ListTable
          bare
          label="Opt-out list"
          columns={COLUMNS}
          rows={list}
          rowKey={(o) => `${o.address?.kind ?? 'phone'}:${o.address?.value ?? o.phoneNumber}`}
          loading={optOuts.isLoading}
          loadingLabel="Loading opt-outs"
          empty="No one has opted out."
          minWidth={680}
          cells={(o) => (
            <>
              <Table.Td>{o.phoneNumber}</Table.Td>
              <Table.Td>{sourceBadge(o)}</Table.Td>
              <Table.Td maw={240} style={{ overflowWrap: 'anywhere' }}>
                {wrote(o)}
              </Table.Td>
              <Table.Td>{formatDateTime(o.createdAt)}</Table.Td>
              <Table.Td>{removeButton(o)}</Table.Td>
            </>
          )}
          card={(o) => (
            <RowCard
              title={o.phoneNumber}
              fields={[
                { label: 'Source', value: sourceBadge(o) },
                { label: 'Message', value: wrote(o) },
                { label: 'Since', value: formatDateTime(o.createdAt) },
              ]}
              actions={removeButton(o)}
            />
          )}
        />
      </Stack>
    </Paper>
  );
}
