import {
  type AuthenticationCreds,
  type ConnectionState,
  initAuthCreds,
  makeWASocket,
  type SignalDataSet,
  type SignalDataTypeMap,
  type SignalKeyStore,
  WA_CERT_DETAILS,
} from 'baileys';
import pino from 'pino';
import type { WaEmulator } from '../src/index.ts';

/** Points rc14's certificate check at the emulator's root (the seam the product uses too). */
export function trustEmulator(emulator: WaEmulator): void {
  WA_CERT_DETAILS.PUBLIC_KEY = Buffer.from(emulator.root.keyPair.public);
  WA_CERT_DETAILS.SERIAL = emulator.root.serial;
}

/** Baileys auth state in memory, kept across sockets like a stored one. */
export function memoryAuth() {
  const creds: AuthenticationCreds = initAuthCreds();
  const data = new Map<string, unknown>();
  const keys: SignalKeyStore = {
    get: async <T extends keyof SignalDataTypeMap>(type: T, ids: string[]) => {
      const out: { [id: string]: SignalDataTypeMap[T] } = {};
      for (const id of ids) {
        const v = data.get(`${type}:${id}`);
        if (v !== undefined) out[id] = v as SignalDataTypeMap[T];
      }
      return out;
    },
    set: async (set: SignalDataSet) => {
      for (const [type, entries] of Object.entries(set))
        for (const [id, v] of Object.entries(entries ?? {}))
          v === null ? data.delete(`${type}:${id}`) : data.set(`${type}:${id}`, v);
    },
  };
  return { creds, keys };
}

/** One real rc14 socket against the emulator, with its connection updates recorded. */
export function openSocket(
  emulator: WaEmulator,
  auth: ReturnType<typeof memoryAuth>,
  /** rc14's warnings and errors, one line each, when given. */
  warnings?: string[],
) {
  const updates: Partial<ConnectionState>[] = [];
  const logger = warnings
    ? pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) })
    : pino({ level: process.env.EMU_BAILEYS_LOG ?? 'silent' });
  const sock = makeWASocket({
    waWebSocketUrl: emulator.url,
    auth,
    version: [2, 3000, 1043857760],
    logger,
    markOnlineOnConnect: false,
    syncFullHistory: false,
  });
  sock.ev.on('creds.update', (u) => Object.assign(auth.creds, u));
  sock.ev.on('connection.update', (u) => updates.push(u));
  return { sock, updates };
}

/** A socket linked through a QR scan and logged in again after the 515 restart, open and past its offline notifications. */
export async function linkedSocket(emulator: WaEmulator, phone: string, warnings?: string[]) {
  const auth = memoryAuth();
  const first = openSocket(emulator, auth, warnings);
  const qr = await waitFor('a QR', () => first.updates.find((u) => u.qr)?.qr);
  await emulator.phone(phone).scan(qr);
  await waitFor('the 515 close', () => first.updates.find((u) => u.connection === 'close'));
  const second = openSocket(emulator, auth, warnings);
  await waitFor(
    'offline notifications',
    () => second.updates.find((u) => u.receivedPendingNotifications),
    60_000,
  );
  return { ...second, auth };
}

export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | null | false,
  ms = 30_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
