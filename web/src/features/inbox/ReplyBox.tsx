import { Alert, Button, FileButton, Group, Stack, Text, Textarea } from '@mantine/core';
import { IconPaperclip, IconSend, IconX } from '@tabler/icons-react';
import { CLOUD_TEXTS, formatRupees, INBOX_TEXTS, type InboxReplyBody, type InboxThread } from '@wa/contract';
import { useState } from 'react';
import { ChargeConfirmModal } from '../../components/charge/ChargeConfirmModal.tsx';
import { useCharge } from '../../components/charge/useCharge.ts';
import { PhoneNumberPicker } from '../../components/PhoneNumberPicker.tsx';
import { TemplateFields, templateKey, useTemplateChoice } from '../../components/TemplateFields.tsx';
import { errorText } from '../../lib/api.ts';
import { capabilitiesOf, priceKindOf } from '../../lib/capabilities.ts';
import { checkFileSize, readFileBase64 } from '../../lib/file-body.ts';
import { formatKB, formatNumber } from '../../lib/format.ts';
import { useCostEstimate } from '../compose/api/cost-estimate.ts';
import { useCreditPrices } from '../compose/api/credit-prices.ts';
import { useTemplates } from '../compose/api/templates.ts';
import { useAccounts } from '../instances/api/get-accounts.ts';
import { useReplyToThread } from './api/reply.ts';
import { freeFormOpen } from './inbox-view.ts';

/**
 * The answer from a thread: through the account the person wrote to (or another of the user's),
 * a text or a file with a caption; a Cloud number outside its 24-hour window answers with an
 * approved template only. The charge is confirmed as for any send; what was typed stays until
 * the answer has gone.
 */
export function ReplyBox(props: { thread: InboxThread }) {
  const { thread } = props;
  const accounts = useAccounts().data ?? [];
  const prices = useCreditPrices();
  const reply = useReplyToThread();
  const [accountId, setAccountId] = useState(thread.sessionId);
  const [text, setText] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const choice = useTemplateChoice(() => setProblem(null));
  const { chosen, values } = choice;
  const [result, setResult] = useState<{ color: 'green' | 'red'; text: string } | null>(null);
  const [confirming, setConfirming] = useState(false);

  const account = accounts.find((s) => s.sessionId === accountId);
  const kind = priceKindOf(account);
  const free = freeFormOpen(thread, accountId, !!account && capabilitiesOf(account).serviceWindow);
  const templates = useTemplates(free ? null : accountId);
  const approved = (templates.data?.templates ?? []).filter((t) => t.status === 'APPROVED');
  const template = free ? null : (approved.find((t) => templateKey(t) === chosen) ?? null);
  const cost = useCostEstimate(
    accountId,
    template ? { templateName: template.name, language: template.language, recipients: 1 } : null,
  );
  const charge = useCharge({
    accountId,
    count: 1,
    audience: 'individuals',
    shares: [{ kind, price: prices[kind], recipients: 1 }],
    metaCharge: cost.data
      ? `≈ ${formatRupees(cost.data.costUnits)} (${cost.data.category.toLowerCase()})`
      : null,
  });

  /** The first of the template's values left empty (-1: none). */
  const emptyValue = values.findIndex((v) => !v.trim());

  /** What is wrong with the answer, or null. */
  const check = (): string | null => {
    if (!free) {
      if (!template) return CLOUD_TEXTS.cloudNeedsTemplate;
      return emptyValue >= 0 ? CLOUD_TEXTS.emptyParameter(template.name, emptyValue + 1) : null;
    }
    if (file) return checkFileSize(file);
    return text.trim() ? null : 'Type an answer or attach a file';
  };

  const ask = () => {
    const refused = check();
    setProblem(refused);
    setResult(null);
    if (!refused) setConfirming(true);
  };

  const send = async () => {
    let body: InboxReplyBody;
    if (template) {
      body = {
        sessionId: accountId,
        type: 'template',
        content: { name: template.name, language: template.language, parameters: values },
      };
    } else if (file) {
      body = {
        sessionId: accountId,
        type: 'media',
        content: text,
        mime: file.type || 'application/octet-stream',
        data: await readFileBase64(file),
        fileName: file.name,
      };
    } else body = { sessionId: accountId, type: 'string', content: text };
    reply.mutate(
      { personId: thread.personId, body },
      {
        onSuccess: (res) => {
          setConfirming(false);
          setText('');
          setFile(null);
          choice.reset();
          const credits =
            res.creditsCharged === undefined
              ? ''
              : ` · ${formatNumber(res.creditsCharged)} ${res.creditsCharged === 1 ? 'credit' : 'credits'}`;
          setResult({ color: 'green', text: `Answer sent (job ${res.jobId})${credits}` });
        },
        onError: (err) => {
          setConfirming(false);
          setResult({
            color: 'red',
            text: errorText(err, 'Failed to send the answer', 'Error sending the answer'),
          });
        },
      },
    );
  };

  return (
    <>
      <Stack gap="sm" component="section" aria-label="Answer">
        <PhoneNumberPicker
          label="Answer from"
          accounts={accounts}
          value={accountId}
          onChange={(v) => {
            if (!v) return;
            setAccountId(v);
            choice.reset();
            setProblem(null);
          }}
        />
        {free ? (
          <>
            <Textarea
              label={file ? 'Caption (optional)' : 'Answer'}
              placeholder="Type your answer"
              rows={3}
              value={text}
              error={problem ?? undefined}
              onChange={(e) => {
                setText(e.currentTarget.value);
                setProblem(null);
              }}
            />
            <Group gap="sm" wrap="wrap">
              <FileButton
                onChange={(f) => {
                  setProblem(f ? checkFileSize(f) : null);
                  setFile(f && !checkFileSize(f) ? f : null);
                }}
              >
                {(p) => (
                  <Button {...p} variant="default" leftSection={<IconPaperclip size={16} aria-hidden />}>
                    Attach a file
                  </Button>
                )}
              </FileButton>
              {file && (
                <Group gap={4} wrap="nowrap" style={{ minWidth: 0 }}>
                  <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                    {file.name} ({formatKB(file.size)})
                  </Text>
                  <Button
                    variant="subtle"
                    size="compact-xs"
                    color="gray"
                    aria-label={`Remove ${file.name}`}
                    onClick={() => setFile(null)}
                  >
                    <IconX size={14} aria-hidden />
                  </Button>
                </Group>
              )}
            </Group>
          </>
        ) : (
          <>
            <Alert color="yellow" variant="light">
              {INBOX_TEXTS.windowClosed}
            </Alert>
            <TemplateFields
              templates={approved}
              loading={templates.isLoading}
              {...choice.fields}
              chooseError={!template ? (problem ?? undefined) : undefined}
              valueError={
                template && emptyValue >= 0 && problem ? { index: emptyValue, text: problem } : null
              }
            />
          </>
        )}
        {result && (
          <Alert color={result.color} variant="light" role={result.color === 'red' ? 'alert' : 'status'}>
            {result.text}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button leftSection={<IconSend size={16} aria-hidden />} onClick={ask} loading={reply.isPending}>
            {free ? 'Send answer' : 'Send template'}
          </Button>
        </Group>
      </Stack>
      <ChargeConfirmModal
        opened={confirming}
        title="Confirm answer"
        action={free ? 'Send answer' : 'Send template'}
        charge={charge}
        busy={reply.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => void send()}
      />
    </>
  );
}
