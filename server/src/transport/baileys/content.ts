import type { AnyMessageContent } from 'baileys';
import { type OutgoingMessage, SendError } from '../types.ts';

/**
 * The Baileys content of one outgoing message. Media goes as the kind decided above the
 * transport from its bytes, with its true type (a document with its file name). A poll that allows several
 * answers has selectableCount 0 (any number); a single-answer poll has 1; its message secret is the
 * job's (rc14 Utils/messages.js generateWAMessageContent takes `poll.messageSecret`, else makes one).
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
          ...(message.secret ? { messageSecret: message.secret } : {}),
        },
      };
    case 'template':
      // Templates are a Cloud API feature; acceptance never routes one to a linked phone.
      throw new SendError('invalid', 'Templates are sent through a Cloud API account');
    case 'media': {
      const caption = message.caption || undefined;
      switch (message.as) {
        case 'image':
          return { image: message.data, caption, mimetype: message.mime };
        case 'video':
          return { video: message.data, caption, mimetype: message.mime };
        case 'audio':
          return { audio: message.data, mimetype: message.mime };
        case 'document':
          return {
            document: message.data,
            mimetype: message.mime,
            fileName: message.fileName ?? 'file',
            caption,
          };
      }
    }
  }
}
