/** What the 'Show Media' popup can show for a job's file (MIS Report). */
export type MediaView =
  | { kind: 'none' }
  | { kind: 'invalid' }
  | { kind: 'image' | 'video' | 'audio' | 'other'; mime: string; bytes: Uint8Array<ArrayBuffer> };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Reads the job's base64 body (a `data:` URL is accepted too) and picks how to show it. */
export function mediaView(data: string | null | undefined, mime: string | null | undefined): MediaView {
  if (!data) return { kind: 'none' };
  let body = data;
  let type = mime ?? '';
  const dataUrl = /^data:([^;,]*)(;[^,]*)?,/.exec(body);
  if (dataUrl) {
    if (!dataUrl[2]?.includes('base64')) return { kind: 'invalid' };
    type = type || dataUrl[1]!;
    body = body.slice(dataUrl[0].length);
  }
  body = body.replace(/\s+/g, '');
  if (body.length === 0 || body.length % 4 !== 0 || !BASE64.test(body)) return { kind: 'invalid' };
  let binary: string;
  try {
    binary = atob(body);
  } catch {
    return { kind: 'invalid' };
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const family = type.split('/')[0];
  const kind = family === 'image' || family === 'video' || family === 'audio' ? family : 'other';
  return { kind, mime: type || 'application/octet-stream', bytes };
}

/**
 * The type a job's file is given in the browser: its own when the page shows it inline (an
 * image, a video, audio this browser plays), else `application/octet-stream`, so that a stored
 * `text/html` or SVG file offered as a download can never open as a page of the console.
 */
export const blobTypeOf = (mime: string, shownInline: boolean): string =>
  shownInline ? mime : 'application/octet-stream';

const DOCUMENT_TYPES: Record<string, string> = {
  pdf: 'PDF document',
  doc: 'Word document',
  docx: 'Word document',
  xls: 'Excel spreadsheet',
  xlsx: 'Excel spreadsheet',
  ppt: 'PowerPoint presentation',
  pptx: 'PowerPoint presentation',
  csv: 'CSV file',
  txt: 'Text file',
  zip: 'ZIP archive',
};

/**
 * What kind of document a file is, in words: `mediaMime` is the spec's generic binary type for
 * every document, so the bytes (a PDF's `%PDF`) and then the name's extension tell.
 */
export function documentType(fileName: string, bytes: Uint8Array, mime: string): string {
  if (bytes[0] === 0x25 && bytes[1] === 0x50 && bytes[2] === 0x44 && bytes[3] === 0x46) return 'PDF document';
  const ext = /\.([A-Za-z0-9]+)$/.exec(fileName)?.[1]?.toLowerCase();
  return (ext && DOCUMENT_TYPES[ext]) ?? mime;
}

/** A file's size as people read it: bytes, KB or MB. */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
