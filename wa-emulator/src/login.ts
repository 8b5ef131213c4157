import { randomBytes } from 'node:crypto';
import { type proto, S_WHATSAPP_NET } from 'baileys';
import type { Connection } from './connection.ts';
import type { World } from './world.ts';

/**
 * The server's answer to a finished handshake: QR refs for a new companion, `<failure>` for an
 * unknown one or a login refused on command, else `<success>` (rc14 Socket/socket.js
 * CB:iq,type:set,pair-device, CB:failure, CB:success).
 */
export function answerLogin(
  conn: Connection,
  payload: proto.ClientPayload,
  deps: {
    world: World;
    newId: () => string;
    /** The QR refs shown to a registering companion (a scan of one finds it). */
    refsShown: (conn: Connection) => void;
    /** The attributes the account's next login is refused with, if a test ordered it. */
    loginFault: (phone: string) => Record<string, string> | undefined;
    /** `<ib><offline>` right with success (WaEmulator.offlineTiming). */
    offlineWithSuccess: boolean;
  },
): void {
  if (payload.devicePairingData) {
    // A new companion: QR refs (rc14 Socket/socket.js CB:iq,type:set,pair-device).
    conn.registration = payload.devicePairingData;
    conn.refs = Array.from({ length: 6 }, () => `2@${randomBytes(48).toString('base64')}`);
    deps.refsShown(conn);
    conn.send({
      tag: 'iq',
      attrs: { from: S_WHATSAPP_NET, type: 'set', id: deps.newId(), xmlns: 'md' },
      content: [
        {
          tag: 'pair-device',
          attrs: {},
          content: conn.refs.map((ref) => ({ tag: 'ref', attrs: {}, content: Buffer.from(ref) })),
        },
      ],
    });
    return;
  }
  const account = deps.world.accounts.get(String(payload.username ?? ''));
  const device = account?.devices.get(payload.device ?? -1);
  if (!account || !device || !conn.clientStatic || !device.noiseKey.equals(conn.clientStatic)) {
    // An unlinked or unknown companion: the server refuses the login (rc14 CB:failure).
    conn.send({ tag: 'failure', attrs: { reason: '401', location: 'emu' } });
    setTimeout(() => conn.close(), 50);
    return;
  }
  const fault = deps.loginFault(account.phone);
  if (fault) {
    conn.send({ tag: 'failure', attrs: { location: 'emu', ...fault } });
    setTimeout(() => conn.close(), 50);
    return;
  }
  conn.account = account;
  conn.device = device;
  conn.send({
    tag: 'success',
    attrs: {
      t: String(Math.floor(Date.now() / 1000)),
      lid: `${account.lid}@lid`,
      location: 'emu',
      props: '1',
      abprops: '1',
      creation: String(Math.floor(Date.now() / 1000) - 86400),
    },
  });
  if (deps.offlineWithSuccess) conn.sendOffline();
}
