import {
  Alert,
  Button,
  Drawer,
  Group,
  NumberInput,
  Paper,
  Progress,
  Select,
  Skeleton,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { type AccountPolicyResponse, POLICY_LIMITS } from '@wa/contract';
import { useMemo, useState } from 'react';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { AutoRepliesSection } from './AutoRepliesSection.tsx';
import { useAccountPolicy } from './api/get-account-policy.ts';
import { useSaveAccountPolicy } from './api/update-account-policy.ts';
import { ProxySection } from './ProxySection.tsx';
import {
  checkPolicy,
  fieldOfServerMessage,
  formOf,
  inFormWords,
  type PolicyForm,
  type PolicyProblems,
  timeZones,
} from './policy-form.ts';

/**
 * The Account settings drawer of one instance: its sending policy (daily limit, warm-up, quiet
 * hours and their time zone, the pause between messages, typing) and today's count against its
 * limit. Problems are shown next to their field, in the contract's (and the server's) words.
 */
export function AccountSettingsDrawer(props: {
  account: { sessionId: string; sessionName: string } | null;
  onClose: () => void;
}) {
  const isMobile = useMediaQuery('(max-width: 48em)');
  const s = props.account;
  const policy = useAccountPolicy(s?.sessionId ?? null);
  return (
    <Drawer
      opened={s !== null}
      onClose={props.onClose}
      position="right"
      size={isMobile ? '100%' : 'md'}
      title={<Text fw={600}>Account settings{s ? ` · ${s.sessionName}` : ''}</Text>}
      closeButtonProps={{ 'aria-label': 'Close account settings' }}
    >
      {s && policy.isError && (
        <Alert color="red" role="alert">
          {policy.error.message}
        </Alert>
      )}
      {s && policy.isLoading && (
        <Stack aria-label="Loading account settings">
          <Skeleton h={80} />
          <Skeleton h={300} />
        </Stack>
      )}
      {s && policy.data && (
        <Stack gap="md">
          <TodayPanel data={policy.data} />
          <PolicyFormView key={s.sessionId} accountId={s.sessionId} initial={policy.data} />
          <AutoRepliesSection key={`auto-replies-${s.sessionId}`} accountId={s.sessionId} />
          <ProxySection key={`proxy-${s.sessionId}`} accountId={s.sessionId} />
        </Stack>
      )}
    </Drawer>
  );
}

/** Today's messages against the daily limit (and the warm-up's cap), and why sends wait now. */
function TodayPanel({ data }: { data: AccountPolicyResponse }) {
  const { sent, limit, warmUpLimit, resetsAt } = data.today;
  return (
    <Paper withBorder p="sm" radius="md" role="region" aria-label="Today">
      <Title order={3} size="h5" mb={4}>
        Today
      </Title>
      <Text size="sm">
        Sent today: <b>{formatNumber(sent)}</b>
        {limit === null ? ' (no daily limit)' : ` of ${formatNumber(limit)}`}
      </Text>
      {limit !== null && (
        <Progress
          mt={6}
          value={Math.min(100, (sent * 100) / limit)}
          color={sent >= limit ? 'red' : 'teal'}
          aria-label="Sent today against the daily limit"
        />
      )}
      {warmUpLimit !== null && (
        <Text size="sm" mt={6}>
          Warm-up: at most {formatNumber(warmUpLimit)} one-to-one messages today
        </Text>
      )}
      <Text size="xs" c="dimmed" mt={6}>
        Resets at {formatDateTime(resetsAt)}
      </Text>
      {data.holding && (
        <Alert color="yellow" mt="sm" p="xs" role="status">
          {data.holding}
        </Alert>
      )}
    </Paper>
  );
}

function PolicyFormView(props: { accountId: string; initial: AccountPolicyResponse }) {
  const [form, setForm] = useState<PolicyForm>(() => formOf(props.initial.policy));
  const [problems, setProblems] = useState<PolicyProblems>({});
  const [saved, setSaved] = useState(false);
  const save = useSaveAccountPolicy();
  const zones = useMemo(() => timeZones(form.timezone), [form.timezone]);

  const set = <K extends keyof PolicyForm>(key: K, value: PolicyForm[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    setSaved(false);
  };

  /** A whole number per local day, or empty for no limit. */
  const perDay = (key: 'dailyLimit' | 'newContactsPerDay') => ({
    placeholder: 'No limit',
    clampBehavior: 'none' as const,
    allowDecimal: false,
    allowNegative: false,
    min: 1,
    max: POLICY_LIMITS[key],
    thousandSeparator: ',',
    value: form[key],
    onChange: (v: string | number) => set(key, v === '' ? '' : Number(v)),
    error: problems[key],
  });
  /** A pause in seconds, to the tenth. */
  const seconds = (key: 'delayMinS' | 'delayMaxS', problem: 'delayMinMs' | 'delayMaxMs') => ({
    clampBehavior: 'none' as const,
    decimalScale: 1,
    allowNegative: false,
    min: 0,
    max: POLICY_LIMITS.delayMaxMs / 1000,
    step: 0.5,
    value: form[key],
    onChange: (v: string | number) => set(key, v === '' ? '' : Number(v)),
    error: problems[problem],
  });

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const checked = checkPolicy(form);
    if (!checked.policy) {
      setProblems(checked.problems);
      return;
    }
    setProblems({});
    save.mutate(
      { accountId: props.accountId, policy: checked.policy },
      {
        onSuccess: (res) => {
          setForm(formOf(res.policy));
          setSaved(true);
        },
        onError: (err) => {
          const text = err instanceof ApiError && err.serverMessage ? err.serverMessage : err.message;
          const field = fieldOfServerMessage(text) ?? 'general';
          setProblems({ [field]: inFormWords(field, text) });
        },
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate aria-label="Sending policy">
      <Stack gap="sm">
        <NumberInput
          label="Daily limit"
          description="Messages of this account per local day; empty for no limit"
          {...perDay('dailyLimit')}
        />
        <Switch
          label="Warm-up"
          description="A new account sends few one-to-one messages a day at first: 50 on days 1-3, 150 on days 4-7, 400 on days 8-14"
          checked={form.warmUp}
          onChange={(e) => set('warmUp', e.currentTarget.checked)}
          error={problems.warmUp}
        />
        <NumberInput
          label="New contacts per day"
          description="Numbers this account has never messaged, per local day; empty for no limit. One-to-one sends wait once it is reached. On by default (50) while warm-up is on"
          {...perDay('newContactsPerDay')}
        />
        <Switch
          label="Quiet hours"
          description="Nothing is sent inside the window (it may cross midnight)"
          checked={form.quietHours}
          onChange={(e) => set('quietHours', e.currentTarget.checked)}
        />
        {form.quietHours && (
          <Group grow align="flex-start">
            <TextInput
              type="time"
              label="Quiet from"
              value={form.quietStart}
              onChange={(e) => set('quietStart', e.currentTarget.value)}
              error={problems['quietHours.start']}
            />
            <TextInput
              type="time"
              label="Quiet until"
              value={form.quietEnd}
              onChange={(e) => set('quietEnd', e.currentTarget.value)}
              error={problems['quietHours.end'] ?? problems.quietHours}
            />
          </Group>
        )}
        <Select
          label="Time zone"
          description="The account's day and quiet hours are in this zone"
          searchable
          data={zones}
          value={form.timezone}
          onChange={(v) => set('timezone', v ?? '')}
          error={problems.timezone}
          nothingFoundMessage="No such time zone"
        />
        <Group grow align="flex-start">
          <NumberInput label="Pause from (seconds)" {...seconds('delayMinS', 'delayMinMs')} />
          <NumberInput label="Pause to (seconds)" {...seconds('delayMaxS', 'delayMaxMs')} />
        </Group>
        <Switch
          label="Typing indicator"
          description="Shows “typing…” before a text, for 1-5 s by its length, inside the pause"
          checked={form.typing}
          onChange={(e) => set('typing', e.currentTarget.checked)}
          error={problems.typing}
        />
        {problems.general && (
          <Alert color="red" role="alert">
            {problems.general}
          </Alert>
        )}
        {saved && (
          <Alert color="green" role="status">
            Settings saved
          </Alert>
        )}
        <Group justify="flex-end">
          <Button type="submit" loading={save.isPending}>
            Save settings
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
