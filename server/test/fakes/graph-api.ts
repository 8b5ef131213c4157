/**
 * The simulated Graph API moved to src/transport/simulator/graph-api.ts, where the demo uses it
 * too (the demo's Cloud API account talks to it over loopback HTTP); re-exported for the tests.
 */
export * from '../../src/transport/simulator/graph-api.ts';

import type { FakeTemplate } from '../../src/transport/simulator/graph-api.ts';

/** An APPROVED template with a body only, as Meta's template management page lists one. */
export const approvedTemplate = (
  name: string,
  language: string,
  category: FakeTemplate['category'],
  body: string,
): FakeTemplate => ({
  name,
  language,
  category,
  status: 'APPROVED',
  components: [{ type: 'BODY', text: body }],
});
