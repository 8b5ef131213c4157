import {
  ActionIcon,
  Button,
  Checkbox,
  FileButton,
  Group,
  Image,
  Paper,
  Stack,
  Tabs,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { IconFile, IconPlus, IconTrash, IconUpload } from '@tabler/icons-react';
import { POLL_LIMITS } from '@wa/contract';
import { type Dispatch, type ReactNode, useEffect, useRef, useState } from 'react';
import { checkFileSize, isImage } from '../../lib/file-body.ts';
import { formatKB } from '../../lib/format.ts';
import {
  type ComposeAction,
  type ComposeField,
  type ComposeState,
  type FieldProblem,
  type MessageKind,
  MIN_POLL_OPTIONS,
} from './compose-form.ts';
import { focusIntoView } from './into-view.ts';
import { useFileUrl } from './useFileUrl.ts';

/** The compose area's props that come from the page's send flow. */
export const composeAreaProps = (flow: {
  compose: ComposeState;
  dispatch: Dispatch<ComposeAction>;
  changeKind: (kind: MessageKind) => void;
  fileError: (text: string) => void;
  fieldError: FieldProblem | null;
  busy: boolean;
}) => ({
  state: flow.compose,
  dispatch: flow.dispatch,
  onKindChange: flow.changeKind,
  onFileError: flow.fileError,
  error: flow.fieldError,
  disabled: flow.busy,
});

/**
 * The compose area of both send pages: Text Message, Media Message and Poll
 * tabs. Changing the tab changes the type, which clears the form (the page clears its message).
 * A problem with the message (`error`) is shown beside its control, which takes the focus.
 */
export function ComposeArea(props: {
  state: ComposeState;
  dispatch: Dispatch<ComposeAction>;
  onKindChange: (kind: MessageKind) => void;
  /** A refused file (over 16 MB): the page shows it as `error`. */
  onFileError: (text: string) => void;
  /** The problem to show beside its control; a new object focuses the control again. */
  error?: FieldProblem | null;
  disabled?: boolean;
  /** Shown under the tabs (the bulk page's personalised preview). */
  footer?: ReactNode;
  /** A 'Status' tab with this content: its own form; `onStatusTab` says when it shows. */
  statusTab?: ReactNode;
  onStatusTab?: (shown: boolean) => void;
}) {
  const { state, dispatch, disabled, error } = props;
  const [statusShown, setStatusShown] = useState(false);
  const preview = useFileUrl(state.file && isImage(state.file) ? state.file : null);
  const controls = useRef<Partial<Record<ComposeField, HTMLElement | null>>>({});
  const errorOf = (field: ComposeField) => (error?.field === field ? error.text : undefined);
  useEffect(() => {
    const el = error && controls.current[error.field];
    if (el) focusIntoView(el);
  }, [error]);

  const pickFile = (file: File | null) => {
    if (file) {
      const refused = checkFileSize(file);
      if (refused) {
        dispatch({ type: 'file', file: null });
        props.onFileError(refused);
        return;
      }
    }
    dispatch({ type: 'file', file });
  };

  return (
    <Paper withBorder p="md" radius="md">
      <Tabs
        value={statusShown ? 'status' : state.kind}
        onChange={(v) => {
          setStatusShown(v === 'status');
          props.onStatusTab?.(v === 'status');
          if (v === 'status') return;
          if (v && v !== state.kind) props.onKindChange(v as MessageKind);
        }}
        keepMounted={false}
      >
        <Tabs.List mb="md">
          <Tabs.Tab value="text" disabled={disabled}>
            Text Message
          </Tabs.Tab>
          <Tabs.Tab value="media" disabled={disabled}>
            Media Message
          </Tabs.Tab>
          <Tabs.Tab value="poll" disabled={disabled}>
            Poll
          </Tabs.Tab>
          {props.statusTab && (
            <Tabs.Tab value="status" disabled={disabled}>
              Status
            </Tabs.Tab>
          )}
        </Tabs.List>

        <Tabs.Panel value="text">
          <Textarea
            ref={(el) => {
              controls.current.text = el;
            }}
            label="Message"
            placeholder="Type your message"
            rows={6}
            error={errorOf('text')}
            value={state.text}
            disabled={disabled}
            onChange={(e) => dispatch({ type: 'text', value: e.currentTarget.value })}
          />
        </Tabs.Panel>

        <Tabs.Panel value="media">
          <Stack gap="sm">
            <Group gap="sm" wrap="wrap">
              <FileButton onChange={pickFile} disabled={disabled}>
                {(p) => (
                  <Button
                    {...p}
                    ref={(el) => {
                      controls.current.file = el;
                    }}
                    variant="light"
                    leftSection={<IconUpload size={16} />}
                    aria-describedby={errorOf('file') ? 'compose-file-error' : undefined}
                  >
                    Select File
                  </Button>
                )}
              </FileButton>
              <Text size="sm" c={state.file ? undefined : 'dimmed'} style={{ wordBreak: 'break-all' }}>
                {state.file ? state.file.name : 'No file selected'}
              </Text>
            </Group>
            {errorOf('file') && (
              <Text id="compose-file-error" size="sm" c="red.8" role="alert">
                {errorOf('file')}
              </Text>
            )}
            {state.file &&
              (preview ? (
                <Image
                  src={preview}
                  alt={`Preview of ${state.file.name}`}
                  mah={240}
                  w="auto"
                  fit="contain"
                  radius="sm"
                  style={{ alignSelf: 'flex-start', maxWidth: '100%' }}
                />
              ) : (
                <Group gap="xs" wrap="nowrap">
                  <IconFile size={32} aria-hidden />
                  <div>
                    <Text size="sm" style={{ wordBreak: 'break-all' }}>
                      {state.file.name}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {formatKB(state.file.size)}
                    </Text>
                  </div>
                </Group>
              ))}
            <Textarea
              label="Caption (optional)"
              rows={3}
              value={state.caption}
              disabled={disabled}
              onChange={(e) => dispatch({ type: 'caption', value: e.currentTarget.value })}
            />
          </Stack>
        </Tabs.Panel>

        <Tabs.Panel value="poll">
          <Stack gap="sm">
            <TextInput
              ref={(el) => {
                controls.current.pollQuestion = el;
              }}
              label="Poll question"
              error={errorOf('pollQuestion')}
              value={state.pollQuestion}
              disabled={disabled}
              onChange={(e) => dispatch({ type: 'pollQuestion', value: e.currentTarget.value })}
            />
            <Text size="sm" fw={500}>
              Options
            </Text>
            {state.pollOptions.map((option, index) => (
              // Options have no identity but their place; the list only grows at the end.
              // biome-ignore lint/suspicious/noArrayIndexKey: see above
              <Group key={index} gap="xs" wrap="nowrap">
                <TextInput
                  ref={(el) => {
                    // The problem with the options focuses the first one.
                    if (index === 0) controls.current.pollOptions = el;
                  }}
                  aria-label={`Option ${index + 1}`}
                  aria-invalid={errorOf('pollOptions') ? true : undefined}
                  aria-describedby={errorOf('pollOptions') ? 'compose-options-error' : undefined}
                  placeholder={`Option ${index + 1}`}
                  value={option}
                  disabled={disabled}
                  style={{ flex: 1 }}
                  onChange={(e) => dispatch({ type: 'pollOption', index, value: e.currentTarget.value })}
                />
                {state.pollOptions.length > MIN_POLL_OPTIONS && (
                  <ActionIcon
                    variant="subtle"
                    color="red"
                    aria-label={`Remove option ${index + 1}`}
                    disabled={disabled}
                    onClick={() => dispatch({ type: 'removePollOption', index })}
                  >
                    <IconTrash size={16} />
                  </ActionIcon>
                )}
              </Group>
            ))}
            {errorOf('pollOptions') && (
              <Text id="compose-options-error" size="sm" c="red.8" role="alert">
                {errorOf('pollOptions')}
              </Text>
            )}
            <Group>
              <Button
                variant="light"
                leftSection={<IconPlus size={16} />}
                disabled={disabled || state.pollOptions.length >= POLL_LIMITS.maxOptions}
                onClick={() => dispatch({ type: 'addPollOption' })}
              >
                Add Option
              </Button>
            </Group>
            <Checkbox
              label="Allow multiple answers"
              checked={state.allowMultipleAnswers}
              disabled={disabled}
              onChange={(e) => dispatch({ type: 'allowMultipleAnswers', value: e.currentTarget.checked })}
            />
          </Stack>
        </Tabs.Panel>
        {props.statusTab && <Tabs.Panel value="status">{props.statusTab}</Tabs.Panel>}
      </Tabs>
      {!statusShown && props.footer}
    </Paper>
  );
}
