import { z } from 'zod';

/** Status values of spec section 4; the page shows any other value as unknown. */
export const SessionStatus = z.enum(['CONNECTED', 'DISCONNECTED', 'PENDING']);
export type SessionStatus = z.infer<typeof SessionStatus>;

export const SessionIdParams = z.object({ sessionId: z.string().min(1).max(100) });

export const Session = z.object({
  id: z.string(),
  sessionId: z.string(),
  phoneNumber: z.string(),
  sessionName: z.string(),
  status: SessionStatus,
  /** Why the session is not sending, in words (banned, paused by WhatsApp's limit, network unreachable...). */
  statusReason: z.string().nullable(),
  /** WhatsApp's limits (error 463, quota) paused sending; it resumes only when the user asks. */
  sendPaused: z.boolean(),
  createdAt: z.string(),
});
export type Session = z.infer<typeof Session>;

export const SessionsResponse = z.object({ success: z.literal(true), sessions: z.array(Session) });
export type SessionsResponse = z.infer<typeof SessionsResponse>;

export const CreateInstanceBody = z.object({
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
});
export type CreateInstanceBody = z.infer<typeof CreateInstanceBody>;

export const CreateInstanceResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  sessionId: z.string(),
});

export const StatusResponse = z.object({
  success: z.literal(true),
  connected: z.boolean(),
  status: SessionStatus,
  statusReason: z.string().nullable(),
});
export type StatusResponse = z.infer<typeof StatusResponse>;

export const RestartResponse = z.object({ success: z.boolean(), message: z.string(), status: SessionStatus });

/** Group as the compose page and the groups list call return it (spec section 3). */
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

/** Group as the Group List page's call returns it (spec section 3). */
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
