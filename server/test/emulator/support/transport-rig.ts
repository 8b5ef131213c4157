import type { WaEmulator } from '@wa/emulator';
import { WA_CERT_DETAILS } from 'baileys';
import pino from 'pino';
import type { AuthEntry, AuthStore } from '../../../src/transport/auth-store.ts';
import type { BaileysStorage } from '../../../src/transport/baileys/socket.ts';
import { type BaileysOptions, BaileysTransport } from '../../../src/transport/baileys/transport.ts';
import type { NumberStore } from '../../../src/transport/number-lookups.ts';
import type { CachedGroup, GroupInfo } from '../../../src/transport/types.ts';
import { waitFor } from '../../wait.ts';

/** An AuthStore in memory, kept across the transport's sockets like the database's. */
function memoryAuthStore(accountId: string): AuthStore {
  const rows = new Map<string, string>();
  return {
    accountId,
    read: async (key) => rows.get(key) ?? null,
    readMany: async (keys) => new Map(keys.flatMap((k) => (rows.has(k) ? [[k, rows.get(k)!]] : []))),
    write: async (entries: AuthEntry[]) => {
      for (const { key, value } of entries) value === null ? rows.delete(key) : rows.set(key, value);
    },
    wipe: async () => rows.clear(),
  };
}

/**
 * WhatsApp's answers about numbers in memory, as wa_number_lookups keeps them across restarts;
 * `queue` is the account's queued numbers (digits) in the order they go, as the engine's claim.
 */
export function memoryNumberStore(queue: () => string[]): NumberStore {
  const answers = new Map<string, { jid: string | null; until: number }>();
  const trusted = (phone: string) => (answers.get(phone)?.until ?? 0) > Date.now();
  return {
    read: async (phones) =>
      new Map(phones.filter(trusted).map((p) => [p, answers.get(p)!.jid] as [string, string | null])),
    write: async (list) => {
      for (const a of list) answers.set(a.phone, { jid: a.jid, until: Date.now() + a.ttlMs });
    },
    upcoming: async (limit) =>
      queue()
        .filter((p) => !trusted(p))
        .slice(0, limit),
  };
}

/**
 * The product's Baileys transport in this process, on the real rc14 socket against the emulator:
 * its storage port in memory, the account's group cache a map fed by its own events (as the
 * account runner feeds the database). For tests that need this process's clock (vi.setSystemTime)
 * or the transport's own answers.
 */
export async function linkedTransport(
  emulator: WaEmulator,
  phone: string,
  options: Partial<Omit<BaileysOptions, 'storage'>> & { storage?: Partial<BaileysStorage> } = {},
) {
  // rc14 checks the server's certificate against its exported root (endpoint.ts does the same).
  WA_CERT_DETAILS.PUBLIC_KEY = Buffer.from(emulator.root.keyPair.public);
  WA_CERT_DETAILS.SERIAL = emulator.root.serial;
  const groups = new Map<string, CachedGroup>();
  const copies = new Map<string, string>();
  const isAdmin = (g: GroupInfo) => g.participants.some((p) => p.phoneNumber === phone && p.admin !== null);
  const auth = memoryAuthStore(`emu-${phone}`);
  const { storage, ...rest } = options;
  /** A transport over the account's stored keys, fed its group events. */
  const make = () => {
    const t = new BaileysTransport(
      { accountId: `emu-${phone}`, phoneNumber: phone },
      {
        storage: { auth, sentCopy: async (id) => copies.get(id) ?? null, ...storage },
        groups: async (id) => groups.get(id),
        log: pino({ level: process.env.EMU_BAILEYS_LOG ?? 'silent' }),
        version: [2, 3000, 1043857760],
        waWebSocketUrl: emulator.url,
        backoffMs: 200,
        ...rest,
      },
    );
    t.on('groups-upsert', (list) => {
      for (const g of list) groups.set(g.id, { ...g, isAdmin: isAdmin(g) });
    });
    t.on('groups-update', (list) => {
      for (const u of list) {
        const g = groups.get(u.id);
        if (g) groups.set(u.id, { ...g, ...u, isAdmin: isAdmin({ ...g, ...u }) });
      }
    });
    return t;
  };
  const transport = make();
  let qr: string | null = null;
  transport.on('connection', (u) => {
    if (u.state === 'qr') qr ??= u.qr;
  });
  await transport.connect();
  const shown = await waitFor('a QR', async () => qr, 60_000, 50);
  await emulator.phone(phone).scan(shown);
  await waitFor('the transport open', async () => transport.state === 'open', 60_000, 50);
  // The account runner's first group sync (accounts/group-sync.ts).
  for (const g of await transport.fetchGroups()) groups.set(g.id, { ...g, isAdmin: isAdmin(g) });
  /** The process restarts: this transport closes and a new one logs in with the stored keys. */
  const restart = async () => {
    await transport.close();
    const again = make();
    await again.connect();
    await waitFor('the transport open again', async () => again.state === 'open', 60_000, 50);
    return again;
  };
  return { transport, groups, copies, restart, auth };
}
