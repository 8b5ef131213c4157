import { FAILURE_TEXTS } from '@wa/contract';
/** The messaging domain's texts, shared by the jobs API and the engine (compared to the letter). */
export const JOB_MESSAGES = {
  jobNotFound: 'Job not found',
  userNotFound: 'User not found',
  nothingToRetry: 'No failed messages to retry',
  /** A template job over both kinds: a phone's recipient holds text, a Cloud one the template's values. */
  retryOtherKind:
    'This template job went through both kinds of account: its failed messages can be retried only on an account of the kind that sent them',
  nothingRetryable:
    'None of the failed messages can succeed on a retry (not on WhatsApp, opted out, or only admins may send to the group)',
  /** Retry Failed without includeDeliveryUnknown, when only such failures are left. */
  deliveryUnknownOnly: (n: number) =>
    `${n === 1 ? 'This message' : `These ${n} messages`} may have arrived already (delivery unknown): retry with includeDeliveryUnknown to send ${n === 1 ? 'it' : 'them'} again, accepting that a second copy may arrive`,
  bulkDisabled: 'Bulk messaging is not enabled for your account',
  interrupted: 'Interrupted: delivery unknown',
  cancelled: 'Cancelled: job deleted',
  accountDisabled: 'The account is disabled',
  paused: 'Job paused',
  resumed: 'Job resumed',
  notPausable: 'Only a running or scheduled job can be paused',
  notResumable: 'Only a paused job can be resumed',
  optedOut: FAILURE_TEXTS.optedOut,
  allOptedOut: 'Every recipient has opted out',
  /** A business-scoped user id (a person known only by it) through a linked phone, which cannot write to one. */
  needsCloudNumber:
    'A linked phone cannot send to a business-scoped user ID: send it from a Cloud API number',
  tooManySeries: 'You can have at most 100 active repeating sends: cancel one before adding another',
} as const;

/** Why a recipient failed in the engine. */
export const DISPATCH_MESSAGES = {
  notConnected: 'Session is not connected',
  notOnWhatsApp: FAILURE_TEXTS.notOnWhatsApp,
  contentMissing: 'Message content is missing',
  interrupted: JOB_MESSAGES.interrupted,
  noLongerAllowed: 'The account may no longer send these messages',
  /** SEND_TIMEOUT_MS passed: WhatsApp may or may not have the message (refunded; a retry may send it twice). */
  sendTimedOut: 'Send timed out: delivery unknown',
} as const;

/** What a Status job's recipients fail with. */
export const STATUS_MESSAGES = {
  cannotPost: 'This account cannot post a Status',
  /** WhatsApp addresses a Status by LID and had none for the number (status.ts statusAudience). */
  noLid: 'WhatsApp gave no LID for this number, so a Status cannot reach it',
} as const;

/**
 * Why a sent message stayed undelivered, where the engine knows: kept on the recipient
 * (undelivered_reason); null when nothing tells why (the phone is off, or the message is lost).
 */
export const UNDELIVERED_REASONS = {
  /** The account's new one-to-one chats were restricted (error 463) when the deadline passed. */
  restricted: 'WhatsApp restricted this account (error 463)',
  notOnWhatsApp: 'Not on WhatsApp',
  decryptGaveUp: 'The phone could not decrypt it (retries given up)',
} as const;

/** Repeating sends (series) a user may have running at once. */
export const MAX_ACTIVE_SERIES = 100;
