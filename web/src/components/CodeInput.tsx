import { TextInput, type TextInputProps } from '@mantine/core';

/**
 * The two-factor code an action asks for again (an authenticator's 6 digits or a recovery
 * code): the phone's keyboard shows digits and the browser may fill the code.
 */
export function CodeInput({
  onValue,
  ...props
}: Omit<TextInputProps, 'onChange'> & { value: string; onValue: (value: string) => void }) {
  return (
    <TextInput
      label="Two-factor code"
      autoComplete="one-time-code"
      inputMode="numeric"
      maxLength={64}
      required
      {...props}
      onChange={(e) => onValue(e.currentTarget.value)}
    />
  );
}
