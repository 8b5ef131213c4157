import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router-dom';
import { focusIntoView } from './into-view.ts';
import type { SendBanner } from './send-result.ts';

/**
 * The page's status banner; once a job exists it carries 'View All Jobs'. It sits
 * beside the send buttons, and each change of `focusKey` brings it into view and focuses it, so a
 * result is read where the user is looking.
 */
export function StatusBanner({
  banner,
  jobExists,
  focusKey = 0,
}: {
  banner: SendBanner | null;
  jobExists: boolean;
  focusKey?: number;
}) {
  const navigate = useNavigate();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (focusKey && ref.current) focusIntoView(ref.current);
  }, [focusKey]);
  if (!banner && !jobExists) return null;
  return (
    <Alert
      ref={ref}
      tabIndex={-1}
      color={banner?.color ?? 'gray'}
      variant="light"
      role="status"
      aria-label="Status"
    >
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Stack gap={2} style={{ flex: '1 1 240px' }}>
          <Text size="sm">{banner?.text ?? ''}</Text>
          {banner?.detail && (
            <Text size="sm" fw={600}>
              {banner.detail}
            </Text>
          )}
        </Stack>
        {jobExists && (
          <Button size="xs" variant="white" onClick={() => navigate('/jobs')}>
            View All Jobs
          </Button>
        )}
      </Group>
    </Alert>
  );
}
