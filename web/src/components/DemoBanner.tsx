import { Box, Text, useMantineTheme } from '@mantine/core';
import { useMeta } from '../features/auth/api/get-meta.ts';
import { readableOn } from '../lib/theme.ts';

/**
 * On every page while the simulator runs, so that a demo is never mistaken for the real thing.
 * Above the app header (z-index 100), below Mantine's modals and drawers (200).
 */
export function DemoBanner() {
  const meta = useMeta();
  const theme = useMantineTheme();
  if (meta.data?.waProvider !== 'simulator') return null;
  return (
    <Box
      role="status"
      // Orange dark enough for white text at WCAG AA (orange 6 was 2.57:1).
      bg={readableOn(theme.colors.orange[8]!, '#ffffff')}
      c="white"
      py={4}
      px="md"
      style={{ position: 'sticky', top: 0, zIndex: 150 }}
    >
      <Text size="sm" fw={600} ta="center">
        Demo mode: messages go to a simulated WhatsApp network
      </Text>
    </Box>
  );
}
