import { useRef, useState } from 'react';
import {
  CsvReadError,
  describePhoneColumn,
  describeSkipped,
  readContactsCsv,
} from '../../lib/csv-contacts.ts';
import type { BulkUpload } from './bulk-recipients.ts';

/**
 * The bulk page's uploaded list: the file read into numbers and fields, what was wrong with a
 * refused one, and the file itself (the page's draft keeps it). `onLoaded` gets the count of
 * numbers read (and the draft's ticks to put back, when the file came from a draft).
 */
export function useBulkUpload<Ticks>(opts: {
  countryCode: string | undefined;
  onLoaded: (count: number, ticks: Ticks | undefined) => void;
}) {
  const [upload, setUpload] = useState<BulkUpload | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const [reading, setReading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** What was wrong with the refused file, beside the spec's 'Please upload a CSV file'. */
  const [errorWhy, setErrorWhy] = useState<string | null>(null);
  /** Lets the same file be picked again after a change on disk. */
  const resetRef = useRef<() => void>(null);

  const load = async (next: File, ticks?: Ticks) => {
    setReading(true);
    try {
      const parsed = await readContactsCsv(next, opts.countryCode);
      setUpload({
        fileName: next.name,
        numbers: parsed.numbers,
        fieldKeys: parsed.fieldKeys,
        fieldColumns: parsed.fieldColumns,
        skippedText: describeSkipped(parsed.skipped),
        columnText: describePhoneColumn(parsed.phoneColumn),
      });
      setFile(next);
      opts.onLoaded(parsed.numbers.length, ticks);
    } catch (err) {
      setError(err instanceof CsvReadError ? err.message : 'Error processing the CSV file');
    } finally {
      setReading(false);
    }
  };

  const choose = async (next: File | null) => {
    if (!next) return;
    resetRef.current?.();
    setError(null);
    setErrorWhy(null);
    // .xlsx too: the dashboard's 'Import from Excel' leads here.
    if (!/\.(csv|xlsx)$/i.test(next.name)) {
      setError('Please upload a CSV file');
      setErrorWhy(`“${next.name}” is neither a .csv nor an Excel .xlsx file; the button takes either.`);
      return;
    }
    await load(next);
  };

  const clear = () => {
    setUpload(null);
    setFile(null);
  };

  return { upload, file, reading, error, errorWhy, resetRef, load, choose, clear };
}
