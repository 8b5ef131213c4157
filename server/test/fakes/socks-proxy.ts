import net from 'node:net';

/**
 * A SOCKS5 proxy on loopback for tests (RFC 1928, CONNECT only; RFC 1929 username/password when
 * given). It dials out from `outAddress` (127.0.0.2 by default: any 127/8 address is loopback on
 * Linux), so a server behind it sees that address, not the product's 127.0.0.1. Every CONNECT it
 * carried is listed in `connects` (as asked). `routes` sends a name elsewhere, as DNS would
 * (`mmg.whatsapp.net:443` to the emulator's media host).
 */
export async function startSocksProxy(
  opts: {
    username?: string;
    password?: string;
    outAddress?: string;
    port?: number;
    routes?: Record<string, { host: string; port: number }>;
  } = {},
) {
  const outAddress = opts.outAddress ?? '127.0.0.2';
  const connects: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    let buf = Buffer.alloc(0);
    let stage: 'greeting' | 'auth' | 'request' | 'piped' = 'greeting';
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (stage === 'greeting') {
        if (buf.length < 2 || buf.length < 2 + buf[1]!) return;
        const methods = [...buf.subarray(2, 2 + buf[1]!)];
        buf = buf.subarray(2 + buf[1]!);
        const wantAuth = opts.username !== undefined;
        const method = wantAuth ? 0x02 : 0x00;
        if (!methods.includes(method)) {
          client.end(Buffer.from([0x05, 0xff]));
          return;
        }
        client.write(Buffer.from([0x05, method]));
        stage = wantAuth ? 'auth' : 'request';
      }
      if (stage === 'auth') {
        if (buf.length < 2) return;
        const ulen = buf[1]!;
        if (buf.length < 3 + ulen) return;
        const plen = buf[2 + ulen]!;
        if (buf.length < 3 + ulen + plen) return;
        const user = buf.subarray(2, 2 + ulen).toString();
        const pass = buf.subarray(3 + ulen, 3 + ulen + plen).toString();
        buf = buf.subarray(3 + ulen + plen);
        const ok = user === opts.username && pass === opts.password;
        client.write(Buffer.from([0x01, ok ? 0x00 : 0x01]));
        if (!ok) {
          client.end();
          return;
        }
        stage = 'request';
      }
      if (stage === 'request') {
        if (buf.length < 5) return;
        const atyp = buf[3]!;
        let host: string;
        let at: number;
        if (atyp === 0x01) {
          if (buf.length < 10) return;
          host = [...buf.subarray(4, 8)].join('.');
          at = 8;
        } else if (atyp === 0x03) {
          const len = buf[4]!;
          if (buf.length < 5 + len + 2) return;
          host = buf.subarray(5, 5 + len).toString();
          at = 5 + len;
        } else {
          client.end(Buffer.from([0x05, 0x08, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
          return;
        }
        const port = buf.readUInt16BE(at);
        const rest = buf.subarray(at + 2);
        stage = 'piped';
        client.off('data', onData);
        connects.push(`${host}:${port}`);
        const to = opts.routes?.[`${host}:${port}`] ?? { host, port };
        const upstream = net.connect({ ...to, localAddress: outAddress }, () => {
          client.write(Buffer.from([0x05, 0x00, 0x00, 0x01, 127, 0, 0, 2, 0, 0]));
          if (rest.length > 0) upstream.write(rest);
          client.pipe(upstream).pipe(client);
        });
        sockets.add(upstream);
        upstream.on('close', () => {
          sockets.delete(upstream);
          client.destroy();
        });
        upstream.on('error', () => client.end(Buffer.from([0x05, 0x05, 0x00, 0x01, 0, 0, 0, 0, 0, 0])));
        client.on('close', () => upstream.destroy());
      }
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    connects,
    /** Stops listening and cuts every tunnel (a dead proxy). */
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
