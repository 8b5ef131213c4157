import { LINKED_PHONE_CAPABILITIES } from '@wa/contract';
import type { ProviderDescriptor } from '../types.ts';

/** A linked phone on the simulated network (demos, tests, benchmarks): what a linked phone can do. */
export const SIMULATOR_PROVIDER: ProviderDescriptor = {
  id: 'simulator',
  kind: 'linked',
  connect: 'link',
  capabilities: LINKED_PHONE_CAPABILITIES,
};
