import { z } from 'zod';
import { AccountCapabilities, AccountProvider } from './accounts.ts';

/** Instance limits (docs/decisions.md, Accounts per user): one for a single-session user, ten for a multi-session user. */
export const MAX_ACCOUNTS_MULTI = 10;
export const ACCOUNT_LIMIT_TEXTS = {
  onlyOne: 'Only one instance is allowed. Please remove the existing instance first.',
  maxMulti: `You can have at most ${MAX_ACCOUNTS_MULTI} instances. Please remove an existing instance first.`,
  /** One phone, one instance: a second link of it would send every job twice from one number. */
  alreadyLinked: (phone: string, accountName: string) =>
    `${phone} is already linked in Instances as “${accountName}”. Use that instance, or terminate it first.`,
} as const;

/** The limit text once a user has `count` instances, or null while they may add one. */
export function accountLimitText(count: number, multi: boolean): string | null {
  if (!multi) return count >= 1 ? ACCOUNT_LIMIT_TEXTS.onlyOne : null;
  return count >= MAX_ACCOUNTS_MULTI ? ACCOUNT_LIMIT_TEXTS.maxMulti : null;
}

/** Status values of the specification; the page shows any other value as unknown. */
export const AccountStatus = z.enum(['CONNECTED', 'DISCONNECTED', 'PENDING']);
export type AccountStatus = z.infer<typeof AccountStatus>;

export const AccountIdParams = z.object({ sessionId: z.string().min(1).max(100) });

export const Account = z.object({
  id: z.string(),
  sessionId: z.string(),
  phoneNumber: z.string(),
  sessionName: z.string(),
  status: AccountStatus,
  /** Why the account is not sending, in words (banned, paused by WhatsApp's limit, network unreachable...). */
  statusReason: z.string().nullable(),
  /**
   * WhatsApp restricts the account's new one-to-one chats (error 463, the new-chat quota): its
   * one-to-one sends wait, group sends go on. They resume at `sendPausedUntil`, or when the user asks.
   */
  sendPaused: z.boolean(),
  /** When WhatsApp lifts the restriction (ISO time), when it said; null otherwise. */
  sendPausedUntil: z.string().nullable(),
  /** It connects through its own proxy (GET /api/session/:sessionId/proxy shows which). */
  hasProxy: z.boolean().optional(),
  createdAt: z.string(),
  /** Beyond the spec: a linked phone ('baileys', or 'simulator' on a simulated network) or a Cloud API number. */
  kind: AccountProvider.optional(),
  /** Beyond the spec: what the account can do (pages offer only what it can). */
  capabilities: AccountCapabilities.optional(),
  /** Cloud API numbers: Meta's quality rating (GREEN, YELLOW, RED, NA, UNKNOWN); null for linked phones. */
  qualityRating: z.string().nullable().optional(),
  /** Cloud API numbers: unique recipients per rolling 24 h (TIER_250 … TIER_UNLIMITED); null for linked phones. */
  messagingLimitTier: z.string().nullable().optional(),
  /** Cloud API numbers: the business name Meta verified. */
  verifiedName: z.string().nullable().optional(),
});
export type Account = z.infer<typeof Account>;

export const AccountsResponse = z.object({ success: z.literal(true), sessions: z.array(Account) });
export type AccountsResponse = z.infer<typeof AccountsResponse>;

export const CreateAccountBody = z.object({
  phoneNumber: z
    .string({ error: 'Please enter a phone number' })
    .trim()
    .min(1, 'Please enter a phone number')
    .max(40),
  sessionName: z
    .string({ error: 'Please enter a session name' })
    .trim()
    .min(1, 'Please enter a session name')
    .max(100),
  /** The account's proxy from the start: `socks5://user:pass@host:port` or `http://…`. */
  proxy: z.string().trim().max(600).optional(),
});
export type CreateAccountBody = z.infer<typeof CreateAccountBody>;

export const CreateAccountResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  sessionId: z.string(),
});

export const StatusResponse = z.object({
  success: z.literal(true),
  connected: z.boolean(),
  status: AccountStatus,
  statusReason: z.string().nullable(),
});
export type StatusResponse = z.infer<typeof StatusResponse>;

export const RestartResponse = z.object({ success: z.boolean(), message: z.string(), status: AccountStatus });

/** Group as the compose page and the groups list call return it. */
export const GroupSummary = z.object({
  groupId: z.string(),
  groupName: z.string(),
  admins: z.array(z.string()),
  inviteLink: z.string().nullable(),
  participantCount: z.number().int(),
  adminCount: z.number().int(),
  creationDate: z.string().nullable(),
  updatedDate: z.string().nullable(),
});
export type GroupSummary = z.infer<typeof GroupSummary>;

export const GroupsListResponse = z.object({
  success: z.literal(true),
  groups: z.array(GroupSummary),
  message: z.string(),
  count: z.number().int(),
});
export type GroupsListResponse = z.infer<typeof GroupsListResponse>;

export const GroupParticipant = z.object({
  phoneNumber: z.string(),
  isAdmin: z.boolean(),
  isSuperAdmin: z.boolean(),
});
export type GroupParticipant = z.infer<typeof GroupParticipant>;

export const LastMessage = z.object({
  sender: z.string(),
  /** Seconds since the epoch. */
  timestamp: z.number().int(),
  body: z.string().nullable(),
});
export type LastMessage = z.infer<typeof LastMessage>;

/** Group as the Group List page's call returns it. */
export const GroupChat = z.object({
  groupId: z.string(),
  groupName: z.string(),
  adminPhone: z.array(z.string()),
  groupLink: z.string().nullable(),
  participantCount: z.number().int(),
  adminCount: z.number().int(),
  creationDate: z.string().nullable(),
  updatedDate: z.string().nullable(),
  owner: z.string().nullable(),
  participants: z.array(GroupParticipant),
  lastMessage: LastMessage.nullable(),
});
export type GroupChat = z.infer<typeof GroupChat>;

export const GroupChatsResponse = z.object({
  success: z.literal(true),
  groups: z.array(GroupChat),
  message: z.string(),
});
export type GroupChatsResponse = z.infer<typeof GroupChatsResponse>;

export const GroupsQuery = z.object({ refresh: z.enum(['0', '1']).optional() });

export const QrQuery = z.object({ t: z.string().max(50).optional() });

/** One message the simulator accepted (its outbox); only with WA_PROVIDER=simulator. */
export const SimulatedMessage = z.object({
  messageId: z.string(),
  chatId: z.string(),
  type: z.enum(['text', 'media', 'poll']),
  text: z.string().nullable(),
  caption: z.string().nullable(),
  mime: z.string().nullable(),
  fileName: z.string().nullable(),
  size: z.number().int().nullable(),
  poll: z
    .object({ name: z.string(), options: z.array(z.string()), allowMultipleAnswers: z.boolean() })
    .nullable(),
  sentAt: z.string(),
});
export type SimulatedMessage = z.infer<typeof SimulatedMessage>;

export const OutboxQuery = z.object({ limit: z.coerce.number().int().min(1).max(10_000).optional() });

export const OutboxResponse = z.object({
  success: z.literal(true),
  /** Oldest first. */
  messages: z.array(SimulatedMessage),
  count: z.number().int(),
});
export type OutboxResponse = z.infer<typeof OutboxResponse>;

/**
 * A text a person writes to a simulated account (`from` as digits, `+91 98…`, or a JID
 * `…@s.whatsapp.net` / `…@lid`); only with WA_PROVIDER=simulator.
 */
export const SimulatorInboundBody = z.object({
  from: z
    .string()
    .trim()
    .regex(
      /^(\+?[0-9][0-9 ()-]{4,24}|[0-9]{5,20}(:[0-9]+)?@(s\.whatsapp\.net|lid))$/,
      'Enter a phone number or a JID',
    ),
  text: z.string().min(1).max(4096),
  /**
   * For a `from` by LID: the number WhatsApp gives beside it (rc14's `remoteJidAlt`, from the
   * stanza's sender_pn), which shows the LID and the number are one person's.
   */
  senderPn: z
    .string()
    .regex(/^[0-9]{6,15}$/, 'senderPn is a phone number in digits with its country code')
    .optional(),
  /** A file the person sends, `text` its caption (the Inbox shows it and serves the file). */
  media: z
    .object({
      type: z.enum(['image', 'video', 'audio', 'document', 'sticker']),
      mime: z.string().min(1).max(200),
      /** The file in base64, up to 1 MB. */
      data: z.base64().max(1_400_000),
      fileName: z.string().max(255).optional(),
    })
    .optional(),
});
export type SimulatorInboundBody = z.infer<typeof SimulatorInboundBody>;

/** `renew`: a new code even when the current one still works (it starts a new linking attempt). */
export const PairingCodeBody = z.object({ renew: z.boolean().optional() }).nullish();

/** Link by phone number: the 8 characters WhatsApp asks for, and until when they work. */
export const PairingCodeResponse = z.object({
  success: z.literal(true),
  code: z.string().length(8),
  /** ISO time. */
  expiresAt: z.string(),
});
export type PairingCodeResponse = z.infer<typeof PairingCodeResponse>;

/** How a pairing code is shown: `ABCD-EFGH`. */
export const formatPairingCode = (code: string) =>
  code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code;
