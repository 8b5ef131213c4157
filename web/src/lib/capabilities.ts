import {
  type Account,
  type AccountCapabilities,
  type AccountKind,
  LINKED_PHONE_CAPABILITIES,
} from '@wa/contract';

/** What a page asks an account to do: the pickers offer only the accounts that can. */
export type Capability = 'groups' | 'individuals' | 'status' | 'channels' | 'templates' | 'createGroup';

type WithCapabilities = Pick<Account, 'capabilities'>;

/**
 * The account's capabilities as GET /api/sessions gives them (the server's provider table); an
 * answer without them is a linked phone's, the one kind the specification knows.
 */
export const capabilitiesOf = (account: WithCapabilities): AccountCapabilities =>
  account.capabilities ?? LINKED_PHONE_CAPABILITIES;

/** Whether `session` can do `capability`. Every account writes to people. */
export function can(account: WithCapabilities, capability: Capability): boolean {
  const caps = capabilitiesOf(account);
  switch (capability) {
    case 'individuals':
      return true;
    case 'createGroup':
      return caps.createGroups;
    default:
      return caps[capability];
  }
}

/**
 * How an account is priced (credit_prices.kind): linked by a QR or a pairing code, a linked phone;
 * connected with credentials, a Cloud API number. No account: a linked phone's price.
 */
export const priceKindOf = (account: WithCapabilities | undefined): AccountKind =>
  account && !capabilitiesOf(account).pairing ? 'cloud' : 'linked';

/** A Cloud API number: it sends approved templates, and is connected with Meta's credentials, not linked. */
export const sendsTemplates = (account: WithCapabilities): boolean => can(account, 'templates');
