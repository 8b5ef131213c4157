import { Center, Paper, Stack, Text, TextInput, type TextInputProps, Title } from '@mantine/core';
import { type FormEvent, type ReactNode, useEffect } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { APP_TITLE } from '../../lib/page-title.ts';

/** The centred card of the public pages (login, sign up, forgot password). */
export function AuthCard(props: { title: string; subtitle?: string; children: ReactNode }) {
  useEffect(() => {
    document.title = `${props.title} · ${APP_TITLE}`;
  }, [props.title]);
  return (
    <Center component="main" mih="100dvh" p="md" bg="var(--mantine-color-gray-0)">
      <Paper withBorder shadow="sm" radius="md" p="xl" w="100%" maw={420}>
        <Stack gap="md">
          <div>
            <Title order={1} size="h2" ta="center">
              {props.title}
            </Title>
            {props.subtitle && (
              <Text c="dimmed" size="sm" ta="center" mt={4}>
                {props.subtitle}
              </Text>
            )}
          </div>
          {props.children}
        </Stack>
      </Paper>
    </Center>
  );
}

/** A public page's form: the error above its fields, the browser's own checks off (the page's run). */
export function AuthForm(props: {
  onSubmit: (e: FormEvent) => void;
  error: string | null;
  children: ReactNode;
}) {
  return (
    <form onSubmit={props.onSubmit} noValidate>
      <Stack gap="md">
        <ErrorAlert error={props.error} />
        {props.children}
      </Stack>
    </form>
  );
}

/** The Username field of the sign-in, sign-up and forgot-password forms. */
export function UsernameInput(props: Omit<TextInputProps, 'label' | 'autoComplete'>) {
  return <TextInput label="Username" autoComplete="username" {...props} />;
}
