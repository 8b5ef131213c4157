import type { AccountOutcome, Transport } from './types.ts';

/**
 * The inbound adapter of the kinds of account whose transport holds a socket (a linked phone, the
 * simulator): what the transport reports of the messages it sent and received, read as the
 * outcomes every provider reports (the Cloud API's adapter reads its webhook: cloud/inbound.ts).
 */
export function onSocketOutcome(transport: Transport, listener: (outcome: AccountOutcome) => void): void {
  transport.on('receipt', (receipt) => listener({ type: 'receipt', receipt }));
  transport.on('send-failed', (f) =>
    listener({ type: 'refused', messageId: f.messageId, reason: f.reason, retryAt: null }),
  );
  transport.on('incoming-text', (message) => listener({ type: 'incoming', message }));
  transport.on('incoming-other', (message) => listener({ type: 'incoming', message }));
  transport.on('same-person', (addresses) => listener({ type: 'same-person', addresses }));
}
