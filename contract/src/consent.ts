import { z } from 'zod';
import { ADDRESS_KINDS } from './jid.ts';

/** One address of a person (contract/jid.ts Address). */
export const PersonAddress = z.object({ kind: z.enum(ADDRESS_KINDS), value: z.string() });

// Consent and withdrawal (India's DPDP Act asks for consent that can be shown).

/** The import's confirmation, as the web import form words it. */
export const CONSENT_TEXTS = {
  confirm: 'The people on this list agreed to receive messages from us',
  purposeLabel: 'Purpose',
  purposeRequired: 'Say what the people agreed to receive (the purpose)',
  purposeTooLong: 'Purpose is too long (max 200 characters)',
  setting: 'Send one-to-one only to contacts with consent',
  noneHasConsent: 'No recipient has consent to receive messages',
  erased: 'Erased',
  needsKey: 'Erasure needs SECRET_KEY',
} as const;

export const MAX_PURPOSE = 200;

/** Where a list's numbers got their consent. */
export const ConsentGrant = z.object({
  grantId: z.string(),
  source: z.enum(['import', 'group']),
  purpose: z.string().nullable(),
  fileName: z.string().nullable(),
  groupId: z.string().nullable(),
  groupName: z.string().nullable(),
  by: z.string(),
  at: z.string(),
});
export type ConsentGrant = z.infer<typeof ConsentGrant>;

/** Everything held about one number (GET /api/contacts/by-phone/:phone). */
export const PersonalData = z.object({
  success: z.literal(true),
  phone: z.string(),
  /** Every address of the person the number belongs to (the number first): what is shown covers them all. */
  addresses: z.array(PersonAddress).optional(),
  generatedAt: z.string(),
  lists: z.array(
    z.object({
      listId: z.string(),
      name: z.string(),
      fields: z.record(z.string(), z.string()),
      tags: z.array(z.string()),
      consent: ConsentGrant.nullable(),
    }),
  ),
  optOut: z
    .object({
      source: z.string(),
      keyword: z.string().nullable(),
      language: z.string().nullable(),
      message: z.string().nullable(),
      at: z.string(),
    })
    .nullable(),
  messages: z.array(
    z.object({
      jobId: z.string(),
      sessionId: z.string(),
      messageType: z.string(),
      createdAt: z.string(),
      status: z.string(),
      content: z.string().nullable(),
      sentAt: z.string().nullable(),
      deliveredAt: z.string().nullable(),
      readAt: z.string().nullable(),
      error: z.string().nullable(),
      /** The person's reply to this message, as Job Details shows it. */
      reply: z.object({ text: z.string().nullable(), at: z.string() }).nullable(),
    }),
  ),
  /** What the person wrote to the user's accounts, and the answers, as the Inbox keeps them. */
  inbox: z
    .array(
      z.object({
        direction: z.enum(['in', 'out']),
        sessionId: z.string(),
        at: z.string(),
        type: z.string(),
        text: z.string(),
        jobId: z.string().nullable(),
      }),
    )
    .optional(),
  /** The number was erased before: nothing is held but the keyed token that keeps it left out. */
  erased: z.boolean(),
});
export type PersonalData = z.infer<typeof PersonalData>;

export const PersonalDataQuery = z.object({ format: z.enum(['json', 'csv']).default('json') });

export const PhoneParams = z.object({ phone: z.string().max(64) });

export const EraseResponse = z.object({
  success: z.literal(true),
  erased: z.literal(true),
  /** The non-reversible token that now stands for the number in past jobs. */
  token: z.string(),
  lists: z.number().int(),
  messages: z.number().int(),
});
export type EraseResponse = z.infer<typeof EraseResponse>;
