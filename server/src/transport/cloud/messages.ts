import { isBsuid, phoneOfJid } from '@wa/contract';
/**
 * The bodies of `POST /{phone-number-id}/messages`, as Meta's Messages reference documents them
 * (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages: a message object
 * with `messaging_product: 'whatsapp'`, `recipient_type: 'individual'`, `to`, `type` and the
 * object named by the type) and its template pages (template management and components:
 * `template: { name, language: { code }, components: [{ type: 'header', parameters: [{ type:
 * 'image', image: { link } }] }, { type: 'body', parameters: [{ type: 'text', text }] }] }`).
 */

/** A header a template send fills: media by public link (image, video, document) or a text parameter. */
export type TemplateHeader =
  | { kind: 'image' | 'video'; link: string }
  | { kind: 'document'; link: string; filename?: string }
  | { kind: 'text'; text: string };

export type TemplateSend = {
  /** The approved template's name and language code, as Meta lists them (`order_update`, `en_US`). */
  name: string;
  language: string;
  /** One value per body variable, in the template's order ({{1}}, {{2}}, … or its named variables). */
  bodyParameters: string[];
  /**
   * For a template whose `parameter_format` is NAMED: the variable names, in the same order as
   * `bodyParameters` (Meta then wants `parameter_name` beside each value).
   */
  parameterNames?: string[];
  header?: TemplateHeader;
};

/** Meta's limit on a text message body (Messages reference: text.body, at most 4096 characters). */
export const TEXT_BODY_MAX = 4096;

/**
 * Whom a send is to: the number in E.164 without `+` (Meta's examples: "to": "919867800451"), or a
 * person's business-scoped user id (BSUID) as Meta gave it. Accepts the engine's phone chat id,
 * `+<digits>`, digits or a BSUID; anything else is refused rather than sent to a wrong person.
 */
export function cloudRecipient(chatIdOrNumber: string): string {
  const text = chatIdOrNumber.trim();
  if (isBsuid(text)) return text;
  const digits = (phoneOfJid(text) ?? text).replace(/^\+/, '');
  if (!/^[1-9][0-9]{5,14}$/.test(digits)) {
    throw new RangeError(`Not a phone number in international form: ${chatIdOrNumber}`);
  }
  return digits;
}

/**
 * The recipient fields of a message object. Meta's "Business-scoped user IDs" page
 * (https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids/):
 * a phone number goes in `to`, a BSUID (or parent BSUID) in `recipient`; when both are given `to`
 * wins, so a BSUID send leaves `to` out.
 */
function recipientFields(to: string): { to: string } | { recipient: string } {
  const id = cloudRecipient(to);
  return isBsuid(id) ? { recipient: id } : { to: id };
}

function headerComponent(header: TemplateHeader) {
  switch (header.kind) {
    case 'text':
      return { type: 'header', parameters: [{ type: 'text', text: header.text }] };
    case 'document':
      return {
        type: 'header',
        parameters: [
          {
            type: 'document',
            document: header.filename
              ? { link: header.link, filename: header.filename }
              : { link: header.link },
          },
        ],
      };
    default:
      return { type: 'header', parameters: [{ type: header.kind, [header.kind]: { link: header.link } }] };
  }
}

export function templateMessageBody(to: string, send: TemplateSend) {
  if (send.parameterNames && send.parameterNames.length !== send.bodyParameters.length) {
    throw new RangeError(
      `Template ${send.name}: ${send.bodyParameters.length} values for ${send.parameterNames.length} named variables`,
    );
  }
  const components: object[] = [];
  if (send.header) components.push(headerComponent(send.header));
  if (send.bodyParameters.length > 0) {
    components.push({
      type: 'body',
      parameters: send.bodyParameters.map((text, i) =>
        send.parameterNames
          ? { type: 'text', parameter_name: send.parameterNames[i], text }
          : { type: 'text', text },
      ),
    });
  }
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    ...recipientFields(to),
    type: 'template',
    template: {
      name: send.name,
      language: { code: send.language },
      ...(components.length > 0 ? { components } : {}),
    },
  };
}

/** A free-form text: only inside the recipient's 24-hour customer service window (else 131047). */
export function textMessageBody(to: string, body: string) {
  if (body.length === 0 || body.length > TEXT_BODY_MAX) {
    throw new RangeError(`A text message has 1 to ${TEXT_BODY_MAX} characters (this one: ${body.length})`);
  }
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    ...recipientFields(to),
    type: 'text',
    text: { preview_url: false, body },
  };
}
