import { z } from 'zod';

/**
 * The vocabulary of the kinds of account, shared by the server and the web app. An account
 * reaches WhatsApp one of two ways, which is what is stored (wa_sessions.kind) and priced
 * (credit_prices.kind); a provider drives it (the server's provider table): a linked phone through
 * Baileys, or through the simulator on a simulated network; a Cloud API number through Meta's
 * Graph API.
 */

/** How an account reaches WhatsApp: a linked phone (the WhatsApp Web protocol) or a Cloud API number. */
export const AccountKind = z.enum(['linked', 'cloud']);
export type AccountKind = z.infer<typeof AccountKind>;

/** Which provider drives an account, as `GET /api/sessions` reports it (`kind`). */
export const AccountProvider = z.enum(['baileys', 'simulator', 'cloud']);
export type AccountProvider = z.infer<typeof AccountProvider>;

/** What an account can do: pages offer only what it can, and the server refuses the rest. */
export const AccountCapabilities = z.object({
  /** Group chats: lists, sends, invite links. */
  groups: z.boolean(),
  /** Makes new groups with their first members. */
  createGroups: z.boolean(),
  polls: z.boolean(),
  /** Images, videos, audio and documents. */
  media: z.boolean(),
  /** Status posts. */
  status: z.boolean(),
  /** Channels (newsletters). */
  channels: z.boolean(),
  /** Approved message templates. */
  templates: z.boolean(),
  /** Free-form messages only within 24 hours of the person's last message (Meta's customer service window). */
  serviceWindow: z.boolean(),
  /** Writes to numbers that never wrote to it without risking a ban for it (a job's cold contacts go there). */
  coldOutreach: z.boolean(),
  /** Linked by a QR or a pairing code (else: connected with credentials). */
  pairing: z.boolean(),
  /** Shows "typing…" before a message. */
  typing: z.boolean(),
  /** 'anti-ban': the policy's pauses, warm-up and typing; 'throughput': the provider paces itself. */
  pace: z.enum(['anti-ban', 'throughput']),
  /** How many sends may be in flight at once (a linked phone: 1). */
  concurrentSends: z.number().int().positive(),
  /** Writes to a person by their business-scoped user id (BSUID); absent: it cannot (a linked phone). */
  businessScopedIds: z.boolean().optional(),
});
export type AccountCapabilities = z.infer<typeof AccountCapabilities>;

/**
 * A number on Meta's Cloud API: one-to-one only, templates any time and free-form texts inside the
 * 24-hour window, to a number or a business-scoped user id; Meta paces it (several in flight).
 */
export const CLOUD_API_CAPABILITIES: AccountCapabilities = {
  groups: false,
  createGroups: false,
  polls: false,
  media: false,
  status: false,
  channels: false,
  templates: true,
  serviceWindow: true,
  coldOutreach: true,
  businessScopedIds: true,
  pairing: false,
  typing: false,
  pace: 'throughput',
  // A number on STANDARD throughput; each transport keeps its own throughput's worth in flight
  // (server/src/transport/cloud/transport.ts sendsInFlight).
  concurrentSends: 20,
};

/** A linked phone's capabilities, whichever provider drives it. */
export const LINKED_PHONE_CAPABILITIES: AccountCapabilities = {
  groups: true,
  createGroups: true,
  polls: true,
  media: true,
  status: true,
  channels: true,
  templates: false,
  serviceWindow: false,
  coldOutreach: false,
  pairing: true,
  typing: true,
  pace: 'anti-ban',
  concurrentSends: 1,
};
