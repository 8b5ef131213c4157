import { Select, Text, TextInput } from '@mantine/core';
import type { CloudTemplate } from '@wa/contract';
import { useState } from 'react';

/** An approved template's value in a picker: its name and language. */
export const templateKey = (t: Pick<CloudTemplate, 'name' | 'language'>): string => `${t.name}|${t.language}`;

/**
 * The choice of one of a Cloud API account's approved templates, its text, and a value for each
 * `{{n}}` of its body (Bulk Messaging's template send, an answer in the Inbox once the 24-hour
 * window has closed). Choosing a template empties the values.
 */
export function TemplateFields(props: {
  /** The account's approved templates. */
  templates: readonly CloudTemplate[];
  loading: boolean;
  chosen: string | null;
  values: readonly string[];
  onChoose: (key: string | null, values: string[]) => void;
  onValue: (index: number, value: string) => void;
  /** A problem with one value, shown beside its input. */
  valueError?: { index: number; text: string } | null;
  /** A problem with the choice itself (none chosen). */
  chooseError?: string;
  /** Under each value's input: what it may hold. */
  valueDescription?: string;
}) {
  const template = props.templates.find((t) => templateKey(t) === props.chosen) ?? null;
  return (
    <>
      <Select
        label="Template"
        placeholder={props.loading ? 'Loading templates…' : 'Choose an approved template'}
        data={props.templates.map((t) => ({
          value: templateKey(t),
          label: `${t.name} (${t.language}, ${t.category.toLowerCase()})`,
        }))}
        value={props.chosen}
        error={props.chooseError}
        onChange={(v) => {
          const t = props.templates.find((x) => templateKey(x) === v);
          props.onChoose(
            v,
            Array.from({ length: t?.parameterCount ?? 0 }, () => ''),
          );
        }}
        nothingFoundMessage="No approved templates on this account"
      />
      {template && (
        <>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {template.bodyText}
          </Text>
          {props.values.map((v, i) => (
            <TextInput
              // biome-ignore lint/suspicious/noArrayIndexKey: one input per {{n}}, in order
              key={i}
              label={`{{${i + 1}}}`}
              description={props.valueDescription}
              value={v}
              error={props.valueError?.index === i ? props.valueError.text : undefined}
              onChange={(e) => props.onValue(i, e.currentTarget.value)}
            />
          ))}
        </>
      )}
    </>
  );
}

/**
 * The template chosen and its values, for TemplateFields (`fields`); `onChange` runs on every
 * change (a page clears the problem it showed).
 */
export function useTemplateChoice(onChange?: () => void) {
  const [chosen, setChosen] = useState<string | null>(null);
  const [values, setValues] = useState<string[]>([]);
  return {
    chosen,
    values,
    reset: () => {
      setChosen(null);
      setValues([]);
    },
    fields: {
      chosen,
      values,
      onChoose: (key: string | null, empty: string[]) => {
        setChosen(key);
        setValues(empty);
        onChange?.();
      },
      onValue: (index: number, value: string) => {
        setValues((all) => all.map((x, k) => (k === index ? value : x)));
        onChange?.();
      },
    },
  };
}
