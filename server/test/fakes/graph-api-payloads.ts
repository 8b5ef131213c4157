/** Moved with the simulated Graph API to src/transport/simulator/graph-api-payloads.ts; re-exported for the tests. */
import { messagesEnvelope } from '../../src/transport/simulator/graph-api-payloads.ts';

export * from '../../src/transport/simulator/graph-api-payloads.ts';

/**
 * The webhook body of one text from `from` to the fake's number, with message id `id`, as the
 * text messages webhook reference lays it out.
 */
export function inboundTextBody(
  fake: { wabaId: string; phoneNumberId: string },
  from: string,
  id: string,
  text: string,
): string {
  return JSON.stringify(
    messagesEnvelope(
      fake.wabaId,
      { id: fake.phoneNumberId, display: '919800015838' },
      {
        contacts: [{ profile: { name: 'Asha' }, wa_id: from }],
        messages: [
          { from, id, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: text } },
        ],
      },
    ),
  );
}
