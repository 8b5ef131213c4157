import { randomBytes } from 'node:crypto';
import {
  type BinaryNode,
  getBinaryNodeChild,
  getBinaryNodeChildBuffer,
  getBinaryNodeChildren,
  jidDecode,
  S_WHATSAPP_NET,
} from 'baileys';
import type { Connection } from './connection.ts';
import type { WaEmulator } from './emulator.ts';
import { groupNode } from './iq-groups.ts';
import { bundleNodes, bundleOf, encodeBE } from './iq-keys.ts';
import { NEWSLETTER_ANSWERS } from './newsletters.ts';
import type { Group } from './world.ts';

export type IqContext = { emulator: WaEmulator; conn: Connection };
/** A node to send back, 'handled' when the handler answered itself, null for an iq the emulator does not know. */
export type IqAnswer = BinaryNode | 'handled' | null;

type Handler = (
  ctx: IqContext,
  iq: BinaryNode,
  child: BinaryNode | undefined,
) => IqAnswer | Promise<IqAnswer>;

function result(iq: BinaryNode, content?: BinaryNode[]): BinaryNode {
  return {
    tag: 'iq',
    attrs: { id: iq.attrs.id!, from: iq.attrs.to ?? S_WHATSAPP_NET, type: 'result' },
    ...(content ? { content } : {}),
  };
}

export function iqError(iq: BinaryNode, code: number, text: string): BinaryNode {
  return {
    tag: 'iq',
    attrs: { id: iq.attrs.id!, from: iq.attrs.to ?? S_WHATSAPP_NET, type: 'error' },
    content: [{ tag: 'error', attrs: { code: String(code), text } }],
  };
}

const readInt = (b: Uint8Array | undefined) =>
  b && b.length > 0 ? Buffer.from(b).readUIntBE(0, b.length) : 0;

/**
 * The iqs a companion sends, keyed `xmlns type child`, with what the server answers. The list
 * is the README's; anything else gets error 501 and is logged as a gap.
 */
const HANDLERS: Record<string, Handler> = {
  // rc14 Socket/socket.js getAvailablePreKeysOnServer
  'encrypt get count': ({ conn }, iq) =>
    result(iq, [{ tag: 'count', attrs: { value: String(conn.device?.preKeys.size ?? 0) } }]),
  // rc14 Utils/signal.js getNextPreKeysNode
  'encrypt set registration': ({ conn }, iq) => {
    const device = conn.device;
    if (!device) return iqError(iq, 401, 'not-authorized');
    for (const key of getBinaryNodeChildren(getBinaryNodeChild(iq, 'list'), 'key')) {
      const value = getBinaryNodeChildBuffer(key, 'value');
      if (value) device.preKeys.set(readInt(getBinaryNodeChildBuffer(key, 'id')), Buffer.from(value));
    }
    const skey = getBinaryNodeChild(iq, 'skey');
    const value = getBinaryNodeChildBuffer(skey, 'value');
    const signature = getBinaryNodeChildBuffer(skey, 'signature');
    if (value && signature)
      device.signedPreKey = {
        id: readInt(getBinaryNodeChildBuffer(skey, 'id')),
        public: Buffer.from(value),
        signature: Buffer.from(signature),
      };
    return result(iq);
  },
  // rc14 Socket/socket.js rotateSignedPreKey
  'encrypt set rotate': ({ conn }, iq, child) => {
    const skey = getBinaryNodeChild(child, 'skey');
    const value = getBinaryNodeChildBuffer(skey, 'value');
    const signature = getBinaryNodeChildBuffer(skey, 'signature');
    if (!conn.device || !value || !signature) return iqError(iq, 400, 'bad-request');
    conn.device.signedPreKey = {
      id: readInt(getBinaryNodeChildBuffer(skey, 'id')),
      public: Buffer.from(value),
      signature: Buffer.from(signature),
    };
    return result(iq);
  },
  // rc14 Socket/socket.js digestKeyBundle: the last query of the login; the server then
  // delivers what waited offline (here: nothing) and says so with <ib><offline/>.
  'encrypt get digest': ({ conn }, iq) => {
    const device = conn.device;
    if (!device) return iqError(iq, 401, 'not-authorized');
    setTimeout(() => conn.sendOffline(), 20);
    return result(iq, [
      {
        tag: 'digest',
        attrs: {},
        content: [
          { tag: 'registration', attrs: {}, content: encodeBE(device.registrationId, 4) },
          { tag: 'type', attrs: {}, content: Buffer.from([5]) },
          { tag: 'identity', attrs: {}, content: device.identityKey },
          {
            tag: 'list',
            attrs: {},
            content: [...device.preKeys.keys()].map((id) => ({
              tag: 'id',
              attrs: {},
              content: encodeBE(id, 3),
            })),
          },
        ],
      },
    ]);
  },
  // rc14 Socket/messages-send.js assertSessions: one bundle per device asked, a one-time prekey each.
  'encrypt get key': async ({ emulator }, iq, child) => {
    const users: BinaryNode[] = [];
    for (const user of getBinaryNodeChildren(child, 'user')) {
      const jid = user.attrs.jid ?? '';
      const bundle = await bundleOf(emulator, jid);
      users.push(
        bundle
          ? { tag: 'user', attrs: { jid }, content: bundleNodes(bundle) }
          : {
              tag: 'user',
              attrs: { jid },
              content: [{ tag: 'error', attrs: { code: '404', text: 'item-not-found' } }],
            },
      );
    }
    return result(iq, [{ tag: 'list', attrs: {}, content: users }]);
  },
  // rc14 Socket/socket.js executeUSyncQuery (onWhatsApp: contact; sends: devices + lid)
  'usync get usync': ({ emulator }, iq, child) => usync(emulator, iq, child!),
  // rc14 Socket/socket.js sendPassiveIq
  'passive set active': (_ctx, iq) => result(iq),
  'passive set passive': (_ctx, iq) => result(iq),
  // rc14 Socket/socket.js keep-alive
  'w:p get ping': (_ctx, iq) => result(iq),
  // rc14 Socket/chats.js fetchProps
  'abt get props': (_ctx, iq) =>
    result(iq, [
      {
        tag: 'props',
        attrs: { protocol: '1', hash: 'emu-props-1' },
        content: [
          // On: rc14 carries a contact's privacy token in its one-to-one stanzas (Socket/chats.js
          // fetchProps → serverProps.privacyTokenOn1to1; Socket/messages-send.js relayMessage).
          { tag: 'prop', attrs: { name: 'privacy_token_sending_on_all_1_on_1_messages', value: 'true' } },
        ],
      },
    ]),
  // rc14 Socket/chats.js fetchBlocklist
  'blocklist get ': (_ctx, iq) => result(iq, [{ tag: 'list', attrs: {} }]),
  // rc14 Socket/chats.js fetchPrivacySettings
  'privacy get privacy': (_ctx, iq) =>
    result(iq, [
      {
        tag: 'privacy',
        attrs: {},
        content: ['last', 'online', 'profile', 'status', 'readreceipts', 'groupadd', 'calladd'].map(
          (name) => ({
            tag: 'category',
            attrs: { name, value: name === 'online' ? 'all' : 'contacts' },
          }),
        ),
      },
    ]),
  // rc14 Socket/messages-send.js issuePrivacyTokens (after a first 1:1 send): a trusted-contact token per JID.
  'privacy set tokens': (_ctx, iq, child) =>
    result(iq, [
      {
        tag: 'tokens',
        attrs: {},
        content: getBinaryNodeChildren(child, 'token').map((t) => ({
          tag: 'token',
          attrs: {
            jid: t.attrs.jid ?? '',
            t: t.attrs.t ?? String(Math.floor(Date.now() / 1000)),
            type: 'trusted_contact',
          },
          content: randomBytes(24),
        })),
      },
    ]),
  // rc14 Socket/mex.js (fetchNewChatMessageCap, fetchAccountReachoutTimelock)
  'w:mex get query': ({ conn, emulator }, iq, child) => {
    const queryId = child?.attrs.query_id ?? '';
    // rc14 Socket/newsletter.js: channels (newsletters.ts), whose answers may be GraphQL errors.
    const newsletter = NEWSLETTER_ANSWERS[queryId];
    if (newsletter) {
      const body = JSON.parse(Buffer.from((child?.content as Uint8Array) ?? []).toString() || '{}');
      const payload = newsletter(emulator, conn, body.variables ?? {});
      return result(iq, [{ tag: 'result', attrs: {}, content: Buffer.from(JSON.stringify(payload)) }]);
    }
    const answer = MEX_ANSWERS[queryId];
    if (!answer) return null;
    const data = answer(conn);
    return result(iq, [{ tag: 'result', attrs: {}, content: Buffer.from(JSON.stringify({ data })) }]);
  },
  // rc14 Socket/messages-send.js refreshMediaConn: the emulator's HTTPS media host.
  'w:m set media_conn': ({ emulator }, iq) =>
    result(iq, [
      {
        tag: 'media_conn',
        attrs: {
          auth: randomBytes(24).toString('base64url'),
          ttl: '300',
          auth_ttl: '21600',
          max_buckets: '12',
        },
        content: [
          { tag: 'host', attrs: { hostname: emulator.media.hostname, maxContentLengthBytes: '104857600' } },
        ],
      },
    ]),
  // rc14 Socket/socket.js sendWAMBuffer
  'w:stats set add': (_ctx, iq) => result(iq),
  'w:stats  add': (_ctx, iq) => result(iq),
  // rc14 Socket/socket.js requestPairingCode (stage companion_hello, not awaited) and
  // Socket/messages-recv.js link_code_companion_reg notification (stage companion_finish, awaited):
  // link by phone number. The hello is kept for the phone (Phone.enterPairingCode); the finish is
  // answered by the phone that entered the code, which checks it.
  'md set link_code_companion_reg': ({ conn }, iq, child) => {
    if (child?.attrs.stage === 'companion_hello') {
      const wrapped = getBinaryNodeChildBuffer(child, 'link_code_pairing_wrapped_companion_ephemeral_pub');
      const noiseKey = getBinaryNodeChildBuffer(child, 'companion_server_auth_key_pub');
      const display = getBinaryNodeChild(child, 'companion_platform_display')?.content;
      if (!conn.registration || !child.attrs.jid || wrapped?.length !== 80 || !noiseKey)
        return iqError(iq, 400, 'bad-request');
      const ref = randomBytes(32);
      conn.linkCode = {
        jid: child.attrs.jid,
        ref,
        wrappedEphemeral: Buffer.from(wrapped),
        noiseKey: Buffer.from(noiseKey),
        platform: display ? Buffer.from(display as Uint8Array).toString() : '',
        awaitingFinish: false,
      };
      return result(iq, [
        {
          tag: 'link_code_companion_reg',
          attrs: {},
          content: [{ tag: 'link_code_pairing_ref', attrs: {}, content: ref }],
        },
      ]);
    }
    if (child?.attrs.stage === 'companion_finish' && conn.linkCode?.awaitingFinish) return 'handled';
    return iqError(iq, 400, 'bad-request');
  },
  // rc14 Socket/socket.js logout: the companion removes itself.
  'md set remove-companion-device': ({ conn }, iq) => {
    if (conn.account && conn.device) conn.account.devices.delete(conn.device.id);
    return result(iq);
  },
  // rc14 Socket/groups.js groupFetchAllParticipating
  'w:g2 get participating': ({ emulator, conn }, iq) => {
    if (!conn.account) return iqError(iq, 401, 'not-authorized');
    const groups = emulator.world.groupsOf(conn.account.phone);
    return result(iq, [{ tag: 'groups', attrs: {}, content: groups.map((g) => groupNode(emulator, g)) }]);
  },
  // rc14 Socket/groups.js groupMetadata
  'w:g2 get query': ({ emulator, conn }, iq) => {
    const group = memberGroup(emulator, conn, iq);
    if (!group) return iqError(iq, 404, 'item-not-found');
    return result(iq, [groupNode(emulator, group)]);
  },
  // rc14 Socket/groups.js groupInviteCode: admins only.
  'w:g2 get invite': ({ emulator, conn }, iq) => {
    const group = memberGroup(emulator, conn, iq);
    if (!group) return iqError(iq, 404, 'item-not-found');
    const me = group.members.find((m) => m.phone === conn.account?.phone);
    if (!me?.admin) return iqError(iq, 401, 'not-authorized');
    return result(iq, [{ tag: 'invite', attrs: { code: group.inviteCode } }]);
  },
};

/**
 * usync: per user asked, the protocols of the query (rc14 WAUSync/Protocols): `contact` (is
 * the number on WhatsApp: type in/out, the number asked echoed), `devices` (device 0 and the linked companions with their
 * key index), `lid` (the account's LID). A number without an account is "out".
 */
function usync(emulator: WaEmulator, iq: BinaryNode, sync: BinaryNode): BinaryNode {
  const protocols =
    (getBinaryNodeChild(sync, 'query')?.content as BinaryNode[] | undefined)?.map((p) => p.tag) ?? [];
  const users = getBinaryNodeChildren(getBinaryNodeChild(sync, 'list'), 'user');
  const out: BinaryNode[] = [];
  for (const user of users) {
    const phoneNode = getBinaryNodeChild(user, 'contact');
    const phone =
      phoneNode?.content !== undefined
        ? Buffer.from(phoneNode.content as Uint8Array)
            .toString()
            .replace(/\D/g, '')
        : null;
    const asked = user.attrs.jid ?? `${phone}@s.whatsapp.net`;
    const account = phone !== null ? emulator.world.accounts.get(phone) : emulator.world.byJid(asked);
    const content: BinaryNode[] = [];
    for (const protocol of protocols) {
      // The number asked comes back in the answer's `<contact>` (whatsmeow user.go IsOnWhatsApp
      // reads it as the response's Query): the asker pairs each answer with its number.
      if (protocol === 'contact')
        content.push({
          tag: 'contact',
          attrs: { type: account ? 'in' : 'out' },
          ...(phoneNode?.content !== undefined ? { content: phoneNode.content } : {}),
        });
      else if (protocol === 'devices' && account) {
        const devices: BinaryNode[] = [{ tag: 'device', attrs: { id: '0' } }];
        for (const d of account.devices.values())
          devices.push({ tag: 'device', attrs: { id: String(d.id), 'key-index': String(d.id) } });
        content.push({
          tag: 'devices',
          attrs: {},
          content: [
            { tag: 'device-list', attrs: {}, content: devices },
            { tag: 'key-index-list', attrs: { ts: String(Math.floor(Date.now() / 1000)) } },
          ],
        });
      } else if (protocol === 'lid' && account && !account.lidWithheld && jidDecode(asked)?.server !== 'lid')
        // A user asked by phone number gets its LID; one asked by LID gets no `<lid>` (rc14's own
        // LID query skips LIDs, Socket/socket.js pnFromLIDUSync: a LID echoed back as the
        // "phone number" of a mapping is what Signal/lid-mapping.js rejects as invalid); an account
        // whose LID is withheld (world.ts) gets none.
        content.push({ tag: 'lid', attrs: { val: `${account.lid}@lid` } });
    }
    out.push({
      tag: 'user',
      attrs: { jid: account && phone !== null ? `${account.phone}@s.whatsapp.net` : asked },
      content,
    });
  }
  return result(iq, [
    {
      tag: 'usync',
      attrs: { sid: sync.attrs.sid ?? '', index: '0', last: 'true' },
      content: [{ tag: 'list', attrs: {}, content: out }],
    },
  ]);
}

/** Answers of w:mex queries by query id (rc14 Types/Mex.js QueryIds). */
const MEX_ANSWERS: Record<string, (conn: Connection) => unknown> = {
  // MESSAGE_CAPPING_INFO
  '24503548349331633': () => ({
    xwa2_message_capping_info: { capping_status: 'NONE', total_quota: 1000, used_quota: 0 },
  }),
  // REACHOUT_TIMELOCK (rc14 Socket/socket.js fetchAccountReachoutTimelock: seconds as a string)
  '23983697327930364': (conn) => {
    const until = conn.account?.reachoutLockedUntil;
    const active = !!until && until.getTime() > Date.now();
    return {
      xwa2_fetch_account_reachout_timelock: {
        is_active: active,
        time_enforcement_ends: active ? String(Math.floor(until.getTime() / 1000)) : '0',
      },
    };
  },
};

function memberGroup(emulator: WaEmulator, conn: Connection, iq: BinaryNode): Group | undefined {
  const id = (iq.attrs.to ?? '').split('@')[0] ?? '';
  const group = emulator.world.groups.get(id);
  return group?.members.some((m) => m.phone === conn.account?.phone) ? group : undefined;
}

/** An iq's key in the handler table: `xmlns type child` (e.g. `usync get usync`). */
export function iqKey(iq: BinaryNode): string {
  const child = Array.isArray(iq.content) ? iq.content[0] : undefined;
  return `${iq.attrs.xmlns ?? ''} ${iq.attrs.type ?? ''} ${child?.tag ?? ''}`;
}

export function answerIq(ctx: IqContext, iq: BinaryNode): IqAnswer | Promise<IqAnswer> {
  const child = Array.isArray(iq.content) ? iq.content[0] : undefined;
  const handler = HANDLERS[iqKey(iq)];
  return handler ? handler(ctx, iq, child) : null;
}

/** The iqs the emulator answers, for its README and its gap report. */
export const KNOWN_IQS = Object.keys(HANDLERS);
