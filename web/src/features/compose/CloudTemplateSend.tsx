import { Alert, Button, Checkbox, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { CLOUD_TEXTS, formatRupees, parseTemplate, renderTemplate, type SendBody } from '@wa/contract';
import { useState } from 'react';
import { errorText, newIdempotencyKey } from '../../lib/api.ts';
import { formatNumber } from '../../lib/format.ts';
import { useCostEstimate } from './api/cost-estimate.ts';
import { useSendEstimate } from './api/send-estimate.ts';
import { sendMessage } from './api/send-message.ts';
import { useTemplates } from './api/templates.ts';
import type { PreviewRecipient } from './PersonalisedPreview.tsx';
import { costLine } from './send-forecast.ts';
import type { SendTarget } from './useSendFlow.ts';

/** The body of a template with its `{{n}}` replaced by this recipient's values. */
function renderBody(body: string, values: string[]): string {
  return body.replace(/\{\{\s*([0-9]+)\s*\}\}/g, (m, n: string) => values[Number(n) - 1] ?? m);
}

/**
 * The bulk page through a Cloud API account: pick an approved template, map each
 * `{{n}}` of its body to a contact field (`{{name}}`) or a fixed text, see each recipient's
 * message and Meta's charge before sending.
 */
export function CloudTemplateSend(props: {
  sessionId: string;
  selectedCount: number;
  /** The balance now and what the recipients cost at their accounts' prices. */
  balance: number;
  credits: { min: number; max: number };
  /** More accounts sharing the send ('Also send from', the body's sessionIds) and whether a linked phone is among them. */
  sessionIds?: string[];
  withPhones: boolean;
  target: () => SendTarget;
  recipients: readonly PreviewRecipient[];
  onSent: () => void;
}) {
  const templates = useTemplates(props.sessionId);
  const approved = (templates.data?.templates ?? []).filter((t) => t.status === 'APPROVED');
  const [chosen, setChosen] = useState<string | null>(null);
  const [values, setValues] = useState<string[]>([]);
  const [banner, setBanner] = useState<{ color: string; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  /** coldToCloud: numbers the phones have chatted with go through them, the rest through Cloud. */
  const [cold, setCold] = useState(true);
  const template = approved.find((t) => `${t.name}|${t.language}` === chosen) ?? null;
  const cost = useCostEstimate(
    props.sessionId,
    template
      ? { templateName: template.name, language: template.language, recipients: props.selectedCount }
      : null,
  );
  /** The body sent: the recipients, the accounts sharing the send, and (with phones) the routing. */
  const bodyOf = (t: { name: string; language: string }): SendBody => ({
    ...props.target(),
    ...(props.sessionIds ? { sessionIds: props.sessionIds } : {}),
    ...(props.withPhones ? { coldToCloud: cold } : {}),
    type: 'template',
    content: { name: t.name, language: t.language, parameters: values },
  });
  // With phones beside the Cloud account, the split (and its cost) before sending.
  const split = useSendEstimate(
    props.sessionId,
    [props.selectedCount, props.sessionIds, cold, template?.name, template?.language],
    props.withPhones && template && props.selectedCount > 0 ? () => bodyOf(template) : null,
  ).data;
  const rendered = (fields: Readonly<Record<string, string>>) =>
    values.map((v) => renderTemplate(parseTemplate(v), fields, () => 0));

  const send = async () => {
    if (!template) return setBanner({ color: 'red', text: CLOUD_TEXTS.cloudNeedsTemplate });
    if (props.selectedCount === 0)
      return setBanner({ color: 'red', text: 'Please select at least one contact' });
    setBusy(true);
    setBanner(null);
    try {
      const body = bodyOf(template);
      const res = await sendMessage(props.sessionId, 'individuals', body, newIdempotencyKey());
      const split = res.split
        ? ` · ${formatNumber(res.split.viaPhones)} through the phones, ${formatNumber(res.split.viaCloud)} through the Cloud API`
        : '';
      const credits =
        res.creditsCharged === undefined ? '' : ` · ${formatNumber(res.creditsCharged)} credits`;
      setBanner({ color: 'green', text: `${res.message} (job ${res.jobId})${split}${credits}` });
      props.onSent();
    } catch (err) {
      setBanner({ color: 'red', text: errorText(err, 'Error sending message', 'Error sending message') });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack gap="sm">
      <Select
        label="Template"
        placeholder={templates.isLoading ? 'Loading templates…' : 'Choose an approved template'}
        data={approved.map((t) => ({
          value: `${t.name}|${t.language}`,
          label: `${t.name} (${t.language}, ${t.category.toLowerCase()})`,
        }))}
        value={chosen}
        onChange={(v) => {
          setChosen(v);
          const t = approved.find((x) => `${x.name}|${x.language}` === v);
          setValues(Array.from({ length: t?.parameterCount ?? 0 }, () => ''));
        }}
        nothingFoundMessage="No approved templates on this account"
      />
      {template && (
        <>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {template.bodyText}
          </Text>
          {values.map((v, i) => (
            <TextInput
              // biome-ignore lint/suspicious/noArrayIndexKey: one input per {{n}}, in order
              key={i}
              label={`{{${i + 1}}}`}
              description="A contact field such as {{name}}, or a fixed text"
              value={v}
              onChange={(e) => {
                const value = e.currentTarget.value;
                setValues((all) => all.map((x, k) => (k === i ? value : x)));
              }}
            />
          ))}
          {props.recipients.length > 0 && (
            <Table aria-label="Preview per recipient">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Phone Number</Table.Th>
                  <Table.Th>Message</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {props.recipients.map((r) => (
                  <Table.Tr key={r.phoneNumber}>
                    <Table.Td>{r.phoneNumber}</Table.Td>
                    <Table.Td>{renderBody(template.bodyText, rendered(r.fields))}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
          {props.selectedCount > 0 && (
            <Text fw={600} size="sm">
              {costLine(props.selectedCount, props.balance, props.credits)}
            </Text>
          )}
          {split && (
            <Alert color="blue" variant="light" role="status" aria-label="Split of the send">
              {formatNumber(split.viaPhones)} through the phones, {formatNumber(split.viaCloud)} through the
              Cloud API · {formatNumber(split.credits)} credits
              {split.metaCostUnits !== null ? ` · ≈ ${formatRupees(split.metaCostUnits)} at Meta's rate` : ''}
            </Alert>
          )}
          {!split && cost.data && (
            <Alert color="blue" variant="light" role="status" aria-label="Meta's charge">
              {cost.data.text}
              {cost.data.tierText ? `. ${cost.data.tierText}` : ''}
            </Alert>
          )}
        </>
      )}
      {props.withPhones && (
        <Checkbox
          checked={cold}
          onChange={(e) => setCold(e.currentTarget.checked)}
          label="Numbers the phones have chatted with go through the phones (as the template's text); the others through the Cloud API account"
        />
      )}
      <Button onClick={() => void send()} loading={busy} disabled={!template}>
        Send template to {formatNumber(props.selectedCount)}
      </Button>
      {banner && (
        <Alert color={banner.color} role={banner.color === 'red' ? 'alert' : 'status'}>
          {banner.text}
        </Alert>
      )}
    </Stack>
  );
}
