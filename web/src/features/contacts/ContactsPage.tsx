import { Card, Stack, Text, Title } from '@mantine/core';

/** Contacts: the spec's placeholder (spec section 2). */
export default function ContactsPage() {
  return (
    <Stack gap="md">
      <Title order={2}>Contacts</Title>
      <Card withBorder radius="md">
        <Text>Contact management will be implemented soon.</Text>
      </Card>
    </Stack>
  );
}
