import {
  ActionIcon,
  Alert,
  Button,
  Group,
  Paper,
  Select,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { type AutoReplyRule, MAX_AUTO_REPLY_RULES } from '@wa/contract';
import { type FormEvent, useEffect, useState } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { messageOf } from '../../lib/api.ts';
import { useAutoReplies, usePutAutoReplies } from './api/auto-replies.ts';

/** `id`: the row's own key while it is edited (rules may be removed from the middle). */
type Draft = {
  id: number;
  keyword: string;
  match: AutoReplyRule['match'];
  text: string;
  reply: AutoReplyRule['reply'];
};

const MATCHES = [
  { value: 'contains', label: 'Contains the words' },
  { value: 'exact', label: 'Is exactly' },
];

let nextDraftId = 0;

const draftOf = (r: AutoReplyRule): Draft => ({
  id: nextDraftId++,
  keyword: r.keyword,
  match: r.match,
  text: typeof r.reply.content === 'string' ? r.reply.content : '',
  reply: r.reply,
});

/** A text reply is edited here; a file or poll reply (set through the API) keeps its content, with its caption edited. */
const ruleOf = (d: Draft): AutoReplyRule => ({
  keyword: d.keyword,
  match: d.match,
  reply:
    typeof d.reply.content === 'string' || d.reply.content == null
      ? { ...d.reply, content: d.text }
      : d.reply,
});

/**
 * An account's keyword auto-replies, in its settings: a message a person writes that matches a
 * rule is answered with the rule's reply, once per person per rule a day, charged as a message.
 * Opt-out words (STOP) always opt the person out and are never answered.
 */
export function AutoRepliesSection(props: { accountId: string }) {
  const current = useAutoReplies(props.accountId);
  const save = usePutAutoReplies(props.accountId);
  const [drafts, setDrafts] = useState<Draft[] | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  useEffect(() => {
    if (current.data && drafts === null) setDrafts(current.data.rules.map(draftOf));
  }, [current.data, drafts]);
  const rules = drafts ?? [];
  const change = (i: number, patch: Partial<Draft>) => {
    setSaved(null);
    setDrafts(rules.map((d, k) => (k === i ? { ...d, ...patch } : d)));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(null);
    save.mutate(
      { accountId: props.accountId, rules: rules.map(ruleOf) },
      {
        onSuccess: (r) => {
          setDrafts(r.rules.map(draftOf));
          setSaved(`Saved ${r.rules.length} auto-reply ${r.rules.length === 1 ? 'rule' : 'rules'}`);
        },
      },
    );
  };
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-label="Auto-replies">
      <Stack gap="xs" component="form" onSubmit={submit}>
        <Title order={3} size="h5">
          Auto-replies
        </Title>
        <Text size="sm" c="dimmed">
          A message that matches a keyword gets its reply, at most once per person per rule in 24 hours,
          charged as a message. Never to groups or to people who opted out; STOP always opts out.
        </Text>
        <ErrorAlert error={current.isError ? messageOf(current.error) : null} />
        {rules.map((d, i) => (
          <Paper key={d.id} withBorder p="xs" radius="sm" role="group" aria-label={`Rule ${i + 1}`}>
            <Stack gap={6}>
              <Group gap="xs" align="flex-end" wrap="wrap">
                <TextInput
                  label="Keyword"
                  value={d.keyword}
                  onChange={(e) => change(i, { keyword: e.currentTarget.value })}
                  style={{ flex: 1, minWidth: 140 }}
                />
                <Select
                  label="Match"
                  data={MATCHES}
                  value={d.match}
                  allowDeselect={false}
                  onChange={(v) => v && change(i, { match: v as Draft['match'] })}
                  w={180}
                />
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={`Remove rule ${i + 1}`}
                  onClick={() => {
                    setSaved(null);
                    setDrafts(rules.filter((_, k) => k !== i));
                  }}
                >
                  <IconTrash size={16} aria-hidden />
                </ActionIcon>
              </Group>
              <Textarea
                label={d.reply.data ? 'Caption' : 'Reply'}
                value={d.text}
                onChange={(e) => change(i, { text: e.currentTarget.value })}
                autosize
                minRows={2}
              />
            </Stack>
          </Paper>
        ))}
        <ErrorAlert error={save.isError ? messageOf(save.error) : null} />
        {saved && (
          <Alert color="green" variant="light" role="status">
            {saved}
          </Alert>
        )}
        <Group justify="space-between">
          <Button
            variant="default"
            disabled={rules.length >= MAX_AUTO_REPLY_RULES || drafts === null}
            onClick={() =>
              setDrafts([
                ...rules,
                { id: nextDraftId++, keyword: '', match: 'contains', text: '', reply: { type: 'string' } },
              ])
            }
          >
            Add rule
          </Button>
          <Button type="submit" loading={save.isPending} disabled={drafts === null}>
            Save auto-replies
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
