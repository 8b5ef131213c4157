// Types for the untyped parts of packages the emulator uses (only what it calls).

declare module 'qrcode/lib/core/error-correction-code.js' {
  const ECCode: {
    getBlocksCount(version: number, level: { bit: number }): number;
    getTotalCodewordsCount(version: number, level: { bit: number }): number;
  };
  export default ECCode;
}

declare module 'qrcode/lib/core/error-correction-level.js' {
  const ECLevel: Record<'L' | 'M' | 'Q' | 'H', { bit: number }>;
  export default ECLevel;
}

declare module 'qrcode/lib/core/format-info.js' {
  const FormatInfo: { getEncodedBits(level: { bit: number }, mask: number): number };
  export default FormatInfo;
}

declare module 'qrcode/lib/core/utils.js' {
  const QrUtils: { getSymbolTotalCodewords(version: number): number };
  export default QrUtils;
}

declare module 'pngjs' {
  export const PNG: { sync: { read(data: Buffer): { width: number; height: number; data: Buffer } } };
}

declare module 'ws' {
  import type { EventEmitter } from 'node:events';
  import type { IncomingMessage } from 'node:http';
  import type { AddressInfo } from 'node:net';

  export class WebSocket extends EventEmitter {
    static readonly OPEN: number;
    readonly readyState: number;
    send(data: Uint8Array, cb?: (err?: Error) => void): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
    on(event: 'message', listener: (data: Buffer) => void): this;
    on(event: 'close', listener: () => void): this;
    on(event: 'error', listener: (err: Error) => void): this;
  }

  export class WebSocketServer extends EventEmitter {
    constructor(options: { port?: number; host?: string; path?: string });
    address(): AddressInfo;
    close(cb?: (err?: Error) => void): void;
    on(event: 'connection', listener: (socket: WebSocket, request: IncomingMessage) => void): this;
    on(event: 'listening', listener: () => void): this;
    on(event: 'error', listener: (err: Error) => void): this;
  }
}
