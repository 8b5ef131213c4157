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
  capabilities: {
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
    concurrentSends: 8,
  },
};
