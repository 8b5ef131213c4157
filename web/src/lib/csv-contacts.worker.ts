/// <reference lib="webworker" />
import { readSheet } from 'read-excel-file/browser';
import {
  CsvReadError,
  contactsOfFile,
  DEFAULT_COUNTRY_CODE,
  postContacts,
  type WorkerMessage,
} from './csv-contacts.ts';

/** Reads and parses an uploaded CSV or .xlsx off the page's thread, so a huge file cannot freeze the page. */
self.onmessage = async (event: MessageEvent<{ file: File; countryCode?: string }>) => {
  const post = (m: WorkerMessage) => self.postMessage(m);
  try {
    const contacts = await contactsOfFile(
      event.data.file,
      event.data.countryCode ?? DEFAULT_COUNTRY_CODE,
      async () => readSheet,
    );
    postContacts(contacts, post);
  } catch (err) {
    post({ kind: 'error', stage: err instanceof CsvReadError ? err.stage : 'parse' });
  }
};
