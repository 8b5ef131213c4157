/// <reference lib="webworker" />
import { packCsv, parseContactsCsv } from './csv-contacts.ts';

/** Reads and parses an uploaded CSV off the page's thread, so a huge file cannot freeze the page. */
self.onmessage = async (event: MessageEvent<{ file: File; countryCode?: string }>) => {
  let text: string;
  try {
    text = await event.data.file.text();
  } catch {
    self.postMessage({ ok: false, stage: 'read' });
    return;
  }
  try {
    self.postMessage({ ok: true, result: packCsv(parseContactsCsv(text, event.data.countryCode)) });
  } catch {
    self.postMessage({ ok: false, stage: 'parse' });
  }
};
