import { z } from 'zod';

// Status posts: a text on a coloured background, an image or a video with a
// caption, to an audience of contact lists or everyone the account has messaged.

/**
 * WhatsApp's status fonts: the proto enum `ExtendedTextMessage.FontType` of Baileys rc14
 * (WAProto/WAProto.proto); 3-5 do not exist.
 */
export const STATUS_FONTS = [
  { value: 0, label: 'Sans serif', css: 'system-ui, sans-serif' },
  { value: 1, label: 'Serif', css: 'Georgia, serif' },
  { value: 2, label: 'Script', css: '"Brush Script MT", cursive' },
  { value: 6, label: 'Bold', css: 'system-ui, sans-serif' },
  { value: 7, label: 'Morning breeze', css: '"Comic Sans MS", cursive' },
  { value: 8, label: 'Calistoga', css: 'Georgia, serif' },
  { value: 9, label: 'Exo', css: 'Impact, sans-serif' },
  { value: 10, label: 'Courier', css: '"Courier New", monospace' },
] as const;
export type StatusFont = (typeof STATUS_FONTS)[number]['value'];
export const STATUS_FONT_VALUES: readonly number[] = STATUS_FONTS.map((f) => f.value);

/** The swatches the compose tab offers (any #RRGGBB is accepted by the API). */
export const STATUS_COLOURS = [
  '#FF7A00',
  '#25D366',
  '#128C7E',
  '#34B7F1',
  '#7E57C2',
  '#E53935',
  '#424242',
] as const;

/** WhatsApp's own limit on a status text. */
export const STATUS_TEXT_MAX = 700;

export const STATUS_TEXTS = {
  noAudience: 'Choose who sees the status: contact lists or everyone this account has messaged',
  bothAudiences: 'Choose contact lists or everyone this account has messaged, not both',
  emptyAudience: 'Nobody is in this audience',
  nobodyMessaged: 'This account has not messaged anyone yet',
  noText: 'Please enter the status text',
  textTooLong: `A status text can have at most ${STATUS_TEXT_MAX} characters`,
  badColour: 'backgroundColor must be a colour as #RRGGBB',
  badFont: `font must be one of ${STATUS_FONT_VALUES.join(', ')}`,
  notImageOrVideo: 'A status can show an image or a video',
  cannotPost: 'This account cannot post a Status (a Cloud API number)',
  unsupported: 'This account cannot post a Status',
  seenBySavers: 'Only people who saved this number see its Status',
} as const;

/** `POST /api/session/:sessionId/sendStatus`. Parsed loosely: the server gives STATUS_TEXTS in order. */
export const StatusSendBody = z.object({
  /** 'text' (on a coloured background) or 'media' (an image or a video). */
  type: z.enum(['text', 'media'], { error: "type must be 'text' or 'media'" }),
  /** The text, or the media's caption. */
  content: z.string().max(65_536).nullish(),
  /** Text only: '#RRGGBB' (default #128C7E). */
  backgroundColor: z.string().max(20).nullish(),
  /** Text only: one of STATUS_FONTS' values (default 0). */
  font: z.number().int().nullish(),
  /** Media only: the file in base64 (a `data:` URL is accepted too). */
  data: z.string().nullish(),
  mime: z.string().max(200).nullish(),
  audience: z.object({
    /** The sender's own contact lists. */
    contactListIds: z.array(z.string().max(100)).max(100).nullish(),
    /** Everyone the account has sent a one-to-one message to. */
    everyoneMessaged: z.boolean().nullish(),
  }),
  /** An ISO timestamp, only when scheduled. */
  scheduleTime: z.string().max(100).nullish(),
});
export type StatusSendBody = z.infer<typeof StatusSendBody>;

/** `GET /api/session/:sessionId/status-audience`: how many the account has messaged. */
export const StatusAudienceResponse = z.object({ everyoneMessaged: z.number().int() });
export type StatusAudienceResponse = z.infer<typeof StatusAudienceResponse>;

/** A text status's look, kept on its job. */
export const StatusStyle = z.object({ backgroundColor: z.string(), font: z.number().int() });
export type StatusStyle = z.infer<typeof StatusStyle>;

/** 'Viewed by 2 of 3': the audience members who viewed it, of those it was posted to. */
export const viewedByText = (viewed: number, postedTo: number): string =>
  `Viewed by ${viewed} of ${postedTo}`;

/** A status colour as the API takes it: #RRGGBB (rc14's assertColor gives it FF alpha). */
export const isStatusColour = (value: string): boolean => /^#[0-9A-Fa-f]{6}$/.test(value);
