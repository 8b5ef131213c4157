import { Badge, Code, Group, Stack, Text } from '@mantine/core';
import type { Account } from '@wa/contract';
import { CopyIconButton } from '../../components/CopyIconButton.tsx';
import { capabilitiesOf } from '../../lib/capabilities.ts';

const QUALITY_COLOR: Record<string, string> = { GREEN: 'green', YELLOW: 'yellow', RED: 'red' };

/** 'TIER_2K' → '2,000 recipients / 24 h'. */
export function tierLabel(tier: string | null | undefined): string {
  const limits: Record<string, string> = {
    TIER_50: '50',
    TIER_250: '250',
    TIER_1K: '1,000',
    TIER_2K: '2,000',
    TIER_10K: '10,000',
    TIER_100K: '1,00,000',
  };
  if (tier === 'TIER_UNLIMITED') return 'Unlimited recipients / 24 h';
  return `${limits[tier ?? ''] ?? '250'} recipients / 24 h`;
}

/**
 * Which kind of account an account is: a linked phone, or a Cloud API number with
 * Meta's quality rating, its messaging limit tier and the webhook URL to register with Meta.
 */
export function AccountKind({ account: s }: { account: Account }) {
  if (capabilitiesOf(s).pairing)
    return (
      <Badge variant="light" color="gray" size="sm">
        Linked phone
      </Badge>
    );
  const webhook = `${window.location.origin}/api/cloud/webhook/${s.sessionId}`;
  return (
    <Stack gap={4}>
      <Group gap={4}>
        <Badge variant="light" color="blue" size="sm">
          Cloud API
        </Badge>
        <Badge
          variant="light"
          color={QUALITY_COLOR[s.qualityRating ?? ''] ?? 'gray'}
          size="sm"
          aria-label={`Quality rating ${s.qualityRating ?? 'unknown'}`}
        >
          Quality {s.qualityRating ?? 'UNKNOWN'}
        </Badge>
      </Group>
      {s.verifiedName && <Text size="xs">{s.verifiedName}</Text>}
      <Text size="xs" c="dimmed">
        Limit: {tierLabel(s.messagingLimitTier)}
      </Text>
      <Group gap={2} wrap="nowrap" align="flex-start">
        <Text size="xs">
          Webhook: <Code style={{ wordBreak: 'break-all' }}>{webhook}</Code>
        </Text>
        <CopyIconButton
          value={webhook}
          label={`Copy the webhook URL of ${s.sessionName}`}
          title="Copy the webhook URL"
        />
      </Group>
    </Stack>
  );
}
