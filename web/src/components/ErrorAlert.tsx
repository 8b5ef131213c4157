import { Alert } from '@mantine/core';

/** A failed call's text in a red alert; nothing when there is none. */
export function ErrorAlert({ error }: { error: string | null | undefined }) {
  return error ? (
    <Alert color="red" role="alert">
      {error}
    </Alert>
  ) : null;
}
