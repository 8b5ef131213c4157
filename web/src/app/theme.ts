import { createTheme } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'teal',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif',
});

/** One status vocabulary, one colour each, everywhere (STYLE.md). */
export const SESSION_STATUS_COLOR: Record<string, string> = {
  CONNECTED: 'green',
  PENDING: 'yellow',
  DISCONNECTED: 'gray',
};
export const JOB_STATUS_COLOR: Record<string, string> = {
  pending: 'gray',
  processing: 'blue',
  scheduled: 'violet',
  completed: 'green',
  failed: 'red',
};
