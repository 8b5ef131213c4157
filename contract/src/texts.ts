import { SERVICE_NAME } from './common.ts';

/**
 * The product's texts that both the server and the web app show, each written once and kept to
 * the letter of spec/product-spec.md (sections 2, 5 and 8). Texts only one side shows stay beside
 * the code that shows them.
 */
export const TEXTS = {
  /** A send or a retry with no linked account. */
  noSession: 'No active session found',
  /** The send pages with no linked account. */
  noSessionConnect: `No active session found. Please connect ${SERVICE_NAME} first.`,
  /** A send that costs more credits than the balance holds. */
  creditShort: 'Your Credit Balance is lower than the message count',
  /** A sign-in with a wrong username or password. */
  invalidLogin: 'Invalid username or password',
  /** An upload that is neither a CSV nor an .xlsx (contacts import and its preview). */
  notATable: 'Error processing the file',
} as const;

/**
 * Why a recipient failed, as the transports and the engine record it and the web app reads it
 * (a retry cannot fix these: job-outcome.ts).
 */
export const FAILURE_TEXTS = {
  notOnWhatsApp: `Not on ${SERVICE_NAME}`,
  notAdmin: 'Only admins can send messages to this group',
  notInGroup: 'Not a member of this group',
  optedOut: 'Opted out',
  /** A Cloud API business's marketing template to someone who stopped its marketing messages (Meta's 131050, or its `user_preferences` webhook). */
  marketingStopped: 'Stopped marketing messages from this business',
} as const;
