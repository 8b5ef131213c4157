import { Alert, Button, Checkbox, Stack, Table } from '@mantine/core';
import {
  CLOUD_TEXTS,
  formatRupees,
  parseTemplate,
  renderTemplate,
  type SendBody,
  templateBodyText,
} from '@wa/contract';
import { useState } from 'react';
import { ChargeConfirmModal } from '../../components/charge/ChargeConfirmModal.tsx';
import type { Charge } from '../../components/charge/ChargeSummary.tsx';
import { needsConfirmation } from '../../components/charge/confirm-pref.ts';
import { TemplateFields, templateKey, useTemplateChoice } from '../../components/TemplateFields.tsx';
import { errorText, newIdempotencyKey } from '../../lib/api.ts';
import { formatNumber } from '../../lib/format.ts';
import { useInvalidate } from '../../lib/mutation.ts';
import { userDetailsKeys } from '../auth/api/get-user-details.ts';
import { messageJobKeys } from '../jobs/api/keys.ts';
import { useCostEstimate } from './api/cost-estimate.ts';
import { useCreditPrices } from './api/credit-prices.ts';
import { useSendEstimate } from './api/send-estimate.ts';
import { sendMessage } from './api/send-message.ts';
import { useTemplates } from './api/templates.ts';
import type { PreviewRecipient } from './PersonalisedPreview.tsx';
import type { SendTarget } from './useSendFlow.ts';

/**
 * The first problem with a template's values, as the server words it: a value left empty, or
 * one whose fields are empty for a recipient of the preview (the server checks every recipient).
 */
export function templateValueProblem(
  name: string,
  values: readonly string[],
  rendered: readonly { phoneNumber: string; values: string[] }[],
): { index: number; text: string } | null {
  const empty = values.findIndex((v) => !v.trim());
  if (empty >= 0) return { index: empty, text: CLOUD_TEXTS.emptyParameter(name, empty + 1) };
  for (const r of rendered) {
    const blank = r.values.findIndex((v) => !v.trim());
    if (blank >= 0)
      return { index: blank, text: CLOUD_TEXTS.emptyParameterFor(name, blank + 1, r.phoneNumber) };
  }
  return null;
}

/**
 * The bulk page through a Cloud API account: pick an approved template, map each
 * `{{n}}` of its body to a contact field (`{{name}}`) or a fixed text, see each recipient's
 * message and Meta's charge before sending.
 */
export function CloudTemplateSend(props: {
  accountId: string;
  selectedCount: number;
  /** What the send costs and when it goes, at the accounts' prices; the split and Meta's charge are added here. */
  charge: Charge;
  /** More accounts sharing the send ('Also send from', the body's sessionIds) and whether a linked phone is among them. */
  accountIds?: string[];
  withPhones: boolean;
  target: () => SendTarget;
  recipients: readonly PreviewRecipient[];
  onSent: () => void;
}) {
  const templates = useTemplates(props.accountId);
  const approved = (templates.data?.templates ?? []).filter((t) => t.status === 'APPROVED');
  const [banner, setBanner] = useState<{ color: string; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  /** A value refused on the page, shown beside its input. */
  const [valueError, setValueError] = useState<{ index: number; text: string } | null>(null);
  const choice = useTemplateChoice(() => setValueError(null));
  const { chosen, values } = choice;
  const prices = useCreditPrices();
  const invalidate = useInvalidate();
  /** coldToCloud: numbers the phones have chatted with go through them, the rest through Cloud. */
  const [cold, setCold] = useState(true);
  const template = approved.find((t) => templateKey(t) === chosen) ?? null;
  const cost = useCostEstimate(
    props.accountId,
    template
      ? { templateName: template.name, language: template.language, recipients: props.selectedCount }
      : null,
  );
  /** The body sent: the recipients, the accounts sharing the send, and (with phones) the routing. */
  const bodyOf = (t: { name: string; language: string }): SendBody => ({
    ...props.target(),
    ...(props.accountIds ? { sessionIds: props.accountIds } : {}),
    ...(props.withPhones ? { coldToCloud: cold } : {}),
    type: 'template',
    content: { name: t.name, language: t.language, parameters: values },
  });
  // With phones beside the Cloud account, the split (and its cost) before sending.
  const split = useSendEstimate(
    props.accountId,
    [props.selectedCount, props.accountIds, cold, template?.name, template?.language],
    props.withPhones && template && props.selectedCount > 0 ? () => bodyOf(template) : null,
  ).data;
  const rendered = (fields: Readonly<Record<string, string>>) =>
    values.map((v) => renderTemplate(parseTemplate(v), fields, () => 0));
  const previews = props.recipients.map((r) => ({ phoneNumber: r.phoneNumber, values: rendered(r.fields) }));
  const metaUnits = split ? split.metaCostUnits : (cost.data?.costUnits ?? null);
  const charge: Charge = {
    ...props.charge,
    shares: split
      ? (
          [
            { kind: 'linked', price: prices.linked, recipients: split.viaPhones },
            { kind: 'cloud', price: prices.cloud, recipients: split.viaCloud },
          ] as const
        ).filter((s) => s.recipients > 0)
      : props.charge.shares,
    metaCharge:
      metaUnits === null
        ? null
        : `≈ ${formatRupees(metaUnits)}${cost.data && !split ? ` (${cost.data.category.toLowerCase()})` : ''}`,
  };

  /** The checks, then the confirmation with the cost and each recipient's message. */
  const confirm = () => {
    if (!template) return setBanner({ color: 'red', text: CLOUD_TEXTS.cloudNeedsTemplate });
    if (props.selectedCount === 0)
      return setBanner({ color: 'red', text: 'Please select at least one contact' });
    const problem = templateValueProblem(template.name, values, previews);
    setValueError(problem);
    if (problem) return setBanner({ color: 'red', text: problem.text });
    setBanner(null);
    if (needsConfirmation(props.selectedCount)) setConfirming(true);
    else void send();
  };

  const send = async () => {
    if (!template) return;
    setBusy(true);
    setBanner(null);
    try {
      const body = bodyOf(template);
      const res = await sendMessage(props.accountId, 'individuals', body, newIdempotencyKey());
      const split = res.split
        ? ` · ${formatNumber(res.split.viaPhones)} through the phones, ${formatNumber(res.split.viaCloud)} through the Cloud API`
        : '';
      const credits =
        res.creditsCharged === undefined ? '' : ` · ${formatNumber(res.creditsCharged)} credits`;
      setBanner({ color: 'green', text: `${res.message} (job ${res.jobId})${split}${credits}` });
      setConfirming(false);
      // The credits were taken: every balance on screen and the jobs are read again.
      void invalidate([userDetailsKeys.all, messageJobKeys.all]);
      props.onSent();
    } catch (err) {
      setConfirming(false);
      setBanner({ color: 'red', text: errorText(err, 'Error sending message', 'Error sending message') });
    } finally {
      setBusy(false);
    }
  };

  const previewTable = template && previews.length > 0 && (
    <Table aria-label="Preview per recipient">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Phone Number</Table.Th>
          <Table.Th>Message</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {previews.map((r) => (
          <Table.Tr key={r.phoneNumber}>
            <Table.Td>{r.phoneNumber}</Table.Td>
            <Table.Td style={{ whiteSpace: 'pre-wrap' }}>
              {templateBodyText(
                template.bodyText,
                r.values.map((v) => v || '⚠ empty'),
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );

  return (
    <Stack gap="sm">
      <TemplateFields
        templates={approved}
        loading={templates.isLoading}
        {...choice.fields}
        valueError={valueError}
        valueDescription="A contact field such as {{name}}, or a fixed text"
      />
      {template && (
        <>
          {previewTable}
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
      <Button onClick={confirm} loading={busy} disabled={!template || props.selectedCount === 0}>
        {props.selectedCount > 0 ? `Send template to ${formatNumber(props.selectedCount)}` : 'Send template'}
      </Button>
      <ChargeConfirmModal
        opened={confirming}
        title={`Send template ${template?.name ?? ''}`}
        action={`Send template to ${formatNumber(props.selectedCount)}`}
        charge={charge}
        busy={busy}
        onCancel={() => setConfirming(false)}
        onConfirm={() => void send()}
      >
        {previewTable}
      </ChargeConfirmModal>
      {banner && (
        <Alert color={banner.color} role={banner.color === 'red' ? 'alert' : 'status'}>
          {banner.text}
        </Alert>
      )}
    </Stack>
  );
}
