import type { AnyMessageContent } from 'baileys';
import type { OutgoingMessage } from '../types.ts';

/**
 * The Baileys content of one outgoing message. Media is sent by its kind (image, video, audio as
 * audio/mpeg, anything else as a document with its file name). A poll that allows several
 * answers has selectableCount 0 (any number); a single-answer poll has 1.
 */
export function toBaileysContent(message: OutgoingMessage): AnyMessageContent {
  switch (message.kind) {
    case 'text':
      return { text: message.text };
    case 'poll':
      return {
        poll: {
          name: message.name,
          values: message.options,
          selectableCount: message.allowMultipleAnswers ? 0 : 1,
        },
      };
    case 'media': {
      const caption = message.caption || undefined;
      const mime = message.mime.toLowerCase();
      if (mime.startsWith('image/')) return { image: message.data, caption, mimetype: mime };
      if (mime.startsWith('video/')) return { video: message.data, caption, mimetype: mime };
      if (mime.startsWith('audio/')) return { audio: message.data, mimetype: 'audio/mpeg' };
      return {
        document: message.data,
        mimetype: mime || 'application/octet-stream',
        fileName: message.fileName ?? 'file',
        caption,
      };
    }
  }
}
