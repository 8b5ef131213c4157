import { CLOUD_API_CAPABILITIES } from '@wa/contract';
import type { ProviderDescriptor } from '../types.ts';

/**
 * A number on Meta's WhatsApp Business Platform, driven through the Graph API: one-to-one only,
 * approved templates any time and free-form texts inside the 24-hour window; Meta paces it (80
 * messages a second by default, several in flight). What comes back arrives by webhook
 * (inbound.ts, its inbound adapter).
 */
export const CLOUD_PROVIDER: ProviderDescriptor = {
  id: 'cloud',
  kind: 'cloud',
  connect: 'credentials',
  capabilities: CLOUD_API_CAPABILITIES,
};
