import type { OutgoingMessage, StatusPost } from '../../transport/types.ts';
import { mediaToSend } from '../media-kind.ts';

/** What the engine hands a transport for a job: a message per recipient, or one Status for many. */
export type DispatchMessage = OutgoingMessage | { kind: 'status'; post: StatusPost };

/** The Status a job posts, rebuilt from its row (and its stored file); null when the file is gone. */
export async function statusPostOf(
  job: {
    content: string;
    statusStyle: { backgroundColor: string; font: number } | null;
    fileName: string | null;
  },
  file: { mime: string; bytes: Buffer } | undefined,
): Promise<DispatchMessage | null> {
  if (job.statusStyle)
    return {
      kind: 'status',
      post: {
        kind: 'text',
        text: job.content,
        backgroundColor: job.statusStyle.backgroundColor,
        font: job.statusStyle.font,
      },
    };
  if (!file) return null;
  const { as, mime } = await mediaToSend(file.bytes, { mime: file.mime, fileName: job.fileName });
  if (as !== 'image' && as !== 'video') return null;
  return { kind: 'status', post: { kind: 'media', as, mime, data: file.bytes, caption: job.content } };
}
