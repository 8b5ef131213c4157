import { EventEmitter } from 'node:events';
import type { SessionRuntime, SessionRuntimeEvents } from '../../src/sessions/runtime.ts';
import { onSocketOutcome } from '../../src/transport/socket-outcomes.ts';
import type { Transport } from '../../src/transport/types.ts';
import { FakeTransport } from './transport.ts';

/** A SessionRuntime whose sessions a test connects and disconnects by hand. */
export class FakeRuntime extends EventEmitter<SessionRuntimeEvents> implements SessionRuntime {
  readonly transports = new Map<string, FakeTransport>();
  private readonly connected = new Set<string>();

  /**
   * Connects (creating once) the fake transport of a session of `userId` and announces it. As the
   * session runner: what the transport reports goes up as the runtime's outcomes.
   */
  connect(sessionId: string, userId: string): FakeTransport {
    let t = this.transports.get(sessionId);
    if (!t) {
      const transport = new FakeTransport(sessionId);
      this.transports.set(sessionId, transport);
      onSocketOutcome(transport, (o) => this.emit('outcome', sessionId, userId, o));
      t = transport;
    }
    t.state = 'open';
    this.connected.add(sessionId);
    this.emit('connected', sessionId);
    return t;
  }

  disconnect(sessionId: string): void {
    const t = this.transports.get(sessionId);
    if (t) t.state = 'closed';
    this.connected.delete(sessionId);
    this.emit('disconnected', sessionId);
  }

  transportFor(sessionId: string): Transport | undefined {
    return this.connected.has(sessionId) ? this.transports.get(sessionId) : undefined;
  }

  ownedSessionIds(): string[] {
    return [...this.connected];
  }

  async stop(): Promise<void> {
    for (const id of [...this.connected]) this.disconnect(id);
  }
}
