/** The messaging domain's texts, shared by the jobs API and the engine (compared to the letter). */
export const JOB_MESSAGES = {
  jobNotFound: 'Job not found',
  userNotFound: 'User not found',
  nothingToRetry: 'No failed messages to retry',
  bulkDisabled: 'Bulk messaging is not enabled for your account',
  interrupted: 'Interrupted: delivery unknown',
  cancelled: 'Cancelled: job deleted',
  accountDisabled: 'The account is disabled',
  paused: 'Job paused',
  resumed: 'Job resumed',
  notPausable: 'Only a running or scheduled job can be paused',
  notResumable: 'Only a paused job can be resumed',
  optedOut: 'Opted out',
  allOptedOut: 'Every recipient has opted out',
} as const;

/** Why a recipient failed in the engine. */
export const DISPATCH_MESSAGES = {
  notConnected: 'Session is not connected',
  notOnWhatsApp: 'Not on WhatsApp',
  contentMissing: 'Message content is missing',
  interrupted: JOB_MESSAGES.interrupted,
  noLongerAllowed: 'The account may no longer send these messages',
  /** SEND_TIMEOUT_MS passed: WhatsApp may or may not have the message (refunded; a retry may send it twice). */
  sendTimedOut: 'Send timed out: delivery unknown',
} as const;
