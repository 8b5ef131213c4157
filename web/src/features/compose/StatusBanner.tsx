import { Alert, Button, Group, Text } from '@mantine/core';
import { useNavigate } from 'react-router-dom';
import type { Banner } from '../../lib/banner.ts';

/** The page's status banner; once a job exists it carries 'View All Jobs' (spec section 2). */
export function StatusBanner({ banner, jobExists }: { banner: Banner | null; jobExists: boolean }) {
  const navigate = useNavigate();
  if (!banner && !jobExists) return null;
  return (
    <Alert color={banner?.color ?? 'gray'} variant="light" role="status" aria-label="Status">
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Text size="sm" style={{ flex: '1 1 240px' }}>
          {banner?.text ?? ''}
        </Text>
        {jobExists && (
          <Button size="xs" variant="white" onClick={() => navigate('/jobs')}>
            View All Jobs
          </Button>
        )}
      </Group>
    </Alert>
  );
}
