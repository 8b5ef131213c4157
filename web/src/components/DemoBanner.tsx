import { Box, Text } from '@mantine/core';
import { useMeta } from '../api/meta.ts';

/**
 * On every page while the simulator runs, so that a demo is never mistaken for the real thing.
 * Above the app header (z-index 100), below Mantine's modals and drawers (200).
 */
export function DemoBanner() {
  const meta = useMeta();
  if (meta.data?.waProvider !== 'simulator') return null;
  return (
    <Box
      role="status"
      bg="orange.6"
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
