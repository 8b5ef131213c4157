import { LINKED_PHONE_CAPABILITIES } from '@wa/contract';
import type { ProviderDescriptor } from '../types.ts';

/** A phone linked as a device, driven through Baileys on the real network. */
export const BAILEYS_PROVIDER: ProviderDescriptor = {
  id: 'baileys',
  kind: 'linked',
  connect: 'link',
  capabilities: LINKED_PHONE_CAPABILITIES,
};
