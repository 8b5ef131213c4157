import {
  Alert,
  Badge,
  Button,
  Checkbox,
  FileInput,
  Group,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { IconFileSpreadsheet } from '@tabler/icons-react';
import {
  CONSENT_TEXTS,
  detectColumns,
  type ImportContactsResponse,
  MAX_PURPOSE,
  TAG_FIELD_KEYS,
} from '@wa/contract';
import { type FormEvent, useMemo, useState } from 'react';
import { AppModal } from '../../components/AppModal.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { ListTable } from '../../components/ListTable.tsx';
import { messageOf } from '../../lib/api.ts';
import { DEFAULT_COUNTRY_CODE } from '../../lib/csv-contacts.ts';
import { formatNumber } from '../../lib/format.ts';
import { useMeta } from '../auth/api/get-meta.ts';
import { useImportContactList } from './api/import-contact-list.ts';
import { listNameOf, NotATableError, readTableSample } from './table-sample.ts';

/** Rows of the file shown before importing. */
const PREVIEW_ROWS = 5;

const plural = (n: number, one: string, many = `${one}s`) => `${formatNumber(n)} ${n === 1 ? one : many}`;

/** What an import did, in words: 'Imported 3 contacts. Skipped: 1 invalid, 1 duplicate, 0 empty.' */
export function importSummary(r: ImportContactsResponse): string {
  const { invalid, duplicates, empty } = r.skipped;
  const consent = r.list.consent?.purpose ? ` Consent recorded for: ${r.list.consent.purpose}.` : '';
  return `Imported ${plural(r.imported, 'contact')} into '${r.list.name}' (phone column: ${r.phoneColumn}). Skipped: ${formatNumber(invalid)} invalid, ${plural(duplicates, 'duplicate')}, ${formatNumber(empty)} empty.${consent}`;
}

/**
 * Import a CSV or Excel file as a contact list: the first rows with the detected phone
 * column and the other columns as fields, another phone column if the guess is wrong, the list's
 * name, then the server's counts or its error.
 */
export function ImportModal(props: { opened: boolean; onClose: () => void }) {
  const meta = useMeta();
  const cc = meta.data?.defaultCountryCode ?? DEFAULT_COUNTRY_CODE;
  const [file, setFile] = useState<File | null>(null);
  const [sample, setSample] = useState<string[][] | null>(null);
  const [readError, setReadError] = useState<string | null>(null);
  const [phoneColumn, setPhoneColumn] = useState<string | null>(null);
  const [name, setName] = useState('');
  // Never checked by default: the user states it for this file (DPDP Act).
  const [agreed, setAgreed] = useState(false);
  const [purpose, setPurpose] = useState('');
  const [result, setResult] = useState<ImportContactsResponse | null>(null);
  const importList = useImportContactList();

  const columns = useMemo(
    () => (sample ? detectColumns(sample, cc, phoneColumn ?? undefined) : null),
    [sample, cc, phoneColumn],
  );

  const reset = () => {
    setFile(null);
    setSample(null);
    setReadError(null);
    setPhoneColumn(null);
    setName('');
    setAgreed(false);
    setPurpose('');
    setResult(null);
    importList.reset();
  };
  const close = () => {
    reset();
    props.onClose();
  };

  const pick = async (f: File | null) => {
    reset();
    setFile(f);
    if (!f) return;
    if (!/\.(csv|xlsx)$/i.test(f.name)) {
      setReadError('Please choose a .csv or .xlsx file');
      return;
    }
    setName(listNameOf(f.name));
    try {
      const rows = await readTableSample(f);
      if (rows.length === 0) throw new NotATableError();
      setSample(rows);
    } catch (err) {
      setReadError(err instanceof NotATableError ? err.message : 'Error reading the file');
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!file || !columns) return;
    importList.mutate(
      {
        file,
        name: name.trim(),
        phoneColumn: String(columns.phoneColumn),
        ...(agreed ? { consentPurpose: purpose.trim() } : {}),
      },
      { onSuccess: setResult },
    );
  };

  const body = columns && sample ? (columns.hasHeader ? sample.slice(1) : sample) : [];
  const fieldOf = new Map(columns?.fields.map((f) => [f.column, f.key]) ?? []);
  const noPhone = columns !== null && columns.phoneColumn === -1;

  return (
    <AppModal opened={props.opened} onClose={close} title="Import contacts" size="xl">
      {result ? (
        <Stack gap="sm">
          <Alert color="green" role="status" aria-label="Import result">
            {importSummary(result)}
          </Alert>
          <Group justify="flex-end">
            <Button variant="default" onClick={reset}>
              Import another file
            </Button>
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <Stack gap="sm" component="form" onSubmit={submit}>
          <FileInput
            label="File (.csv or .xlsx)"
            description="A CSV (comma, semicolon or tab) or an Excel sheet, e.g. contacts exported from a phone"
            placeholder="Choose a file"
            accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
            leftSection={<IconFileSpreadsheet size={16} aria-hidden />}
            value={file}
            onChange={pick}
            clearable
            clearButtonProps={{ 'aria-label': 'Clear the chosen file' }}
          />
          <ErrorAlert error={readError} />
          {columns && sample && (
            <>
              <Select
                label="Phone column"
                data={columns.headers.map((h, i) => ({ value: String(i), label: h }))}
                value={columns.phoneColumn === -1 ? null : String(columns.phoneColumn)}
                onChange={setPhoneColumn}
                allowDeselect={false}
                comboboxProps={{ withinPortal: true }}
              />
              {noPhone && (
                <Alert color="yellow" role="alert">
                  No column holds phone numbers: choose the phone column.
                </Alert>
              )}
              <Text size="sm" c="dimmed">
                First {Math.min(PREVIEW_ROWS, body.length)} rows of {file?.name}. The phone column gives each
                contact's number; a Labels or Tags column gives its tags; every other column becomes a field
                for {'{{field}}'} in messages.
              </Text>
              <ListTable
                label="File preview"
                bare
                rows={body.slice(0, PREVIEW_ROWS)}
                rowKey={(_row, r) => r}
                empty="No rows"
                tableProps={{
                  striped: false,
                  verticalSpacing: undefined,
                  withTableBorder: true,
                  withColumnBorders: true,
                  fz: 'sm',
                  // As wide as the cells need (at least the box): values are not broken mid-word.
                  style: { width: 'max-content', minWidth: '100%' },
                }}
                columns={columns.headers.map((h, i) => ({
                  header: (
                    <Stack gap={2}>
                      <Text size="sm" fw={600}>
                        {h}
                      </Text>
                      {i === columns.phoneColumn ? (
                        <Badge color="green" variant="light" size="sm">
                          Phone
                        </Badge>
                      ) : TAG_FIELD_KEYS.includes(fieldOf.get(i) ?? '') ? (
                        <Badge color="blue" variant="light" size="sm">
                          Tags
                        </Badge>
                      ) : (
                        <Badge color="gray" variant="light" size="sm" tt="none" maw="none">
                          {`{{${fieldOf.get(i)}}}`}
                        </Badge>
                      )}
                    </Stack>
                  ),
                }))}
                cells={(row) =>
                  columns.headers.map((_, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: columns are positions
                    <Table.Td key={i} style={{ whiteSpace: 'nowrap' }}>
                      {row[i] ?? ''}
                    </Table.Td>
                  ))
                }
              />
              <TextInput
                label="List name"
                value={name}
                onChange={(e) => setName(e.currentTarget.value)}
                required
                maxLength={200}
              />
              <Checkbox
                label={CONSENT_TEXTS.confirm}
                description="Kept with the file's name, your name and the time, as the record of consent"
                checked={agreed}
                onChange={(e) => setAgreed(e.currentTarget.checked)}
              />
              {agreed && (
                <TextInput
                  label={CONSENT_TEXTS.purposeLabel}
                  description="What they agreed to receive, e.g. Order updates"
                  value={purpose}
                  onChange={(e) => setPurpose(e.currentTarget.value)}
                  required
                  maxLength={MAX_PURPOSE}
                />
              )}
            </>
          )}
          <ErrorAlert error={importList.isError ? messageOf(importList.error) : null} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close} disabled={importList.isPending}>
              Cancel
            </Button>
            <Button
              type="submit"
              disabled={!columns || noPhone || name.trim() === '' || (agreed && purpose.trim() === '')}
              loading={importList.isPending}
            >
              Import
            </Button>
          </Group>
        </Stack>
      )}
    </AppModal>
  );
}
