import { Button, Group, Text, TextInput } from '@mantine/core';
import { FIRST_NAME_FIELD } from '@wa/contract';
import { useState } from 'react';

/** `{{field}}`, or `{{field|fallback}}` when a fallback is given (docs/decisions.md, Personalised text). */
export const fieldToken = (field: string, fallback: string): string => {
  const f = fallback.replace(/[{}|]/g, '').trim();
  return f ? `{{${field}|${f}}}` : `{{${field}}}`;
};

/**
 * 'Insert {{first_name}}' and the recipients' other fields, with a fallback for a blank field
 * (`{{name}}` put 'Kumar, Arjun' into a greeting).
 */
export function FieldInserter(props: {
  fields: readonly string[];
  onInsert: (token: string) => void;
  disabled?: boolean;
}) {
  const [fallback, setFallback] = useState('');
  if (props.fields.length === 0) return null;
  const ordered = [
    ...props.fields.filter((f) => f === FIRST_NAME_FIELD),
    ...props.fields.filter((f) => f !== FIRST_NAME_FIELD),
  ];
  return (
    <Group gap="xs" mt="sm" align="flex-end" wrap="wrap" role="group" aria-label="Personalise">
      <Text size="sm" fw={500} w="100%">
        Personalise: insert a field at the end of the text
      </Text>
      {ordered.map((f) => (
        <Button
          key={f}
          size="compact-sm"
          variant="light"
          aria-label={`Insert {{${f}}}`}
          disabled={props.disabled}
          onClick={() => props.onInsert(fieldToken(f, fallback))}
        >
          {`{{${f}}}`}
        </Button>
      ))}
      <TextInput
        label="Fallback when blank"
        placeholder="e.g. Customer"
        size="xs"
        w={160}
        maxLength={50}
        value={fallback}
        onChange={(e) => setFallback(e.currentTarget.value)}
        disabled={props.disabled}
      />
    </Group>
  );
}
