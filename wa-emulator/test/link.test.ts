import QRCode from 'qrcode';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WaEmulator } from '../src/index.ts';
import { memoryAuth, openSocket, trustEmulator, waitFor } from './baileys-client.ts';

describe('the real rc14 socket against the emulator', () => {
  let emulator: WaEmulator;
  const lines: string[] = [];
  beforeEach(async () => {
    emulator = await WaEmulator.start({ log: (l) => lines.push(l) });
    trustEmulator(emulator);
  });
  afterEach(async () => {
    await emulator.stop();
  });

  it('shows a QR, links by a scan of its PNG, restarts on 515 and logs in', async () => {
    const auth = memoryAuth();
    const first = openSocket(emulator, auth);
    const qr = await waitFor('a QR', () => first.updates.find((u) => u.qr)?.qr);
    expect(qr).toMatch(/^https:\/\/wa\.me\/settings\/linked_devices#2@/);
    // The phone reads the QR from an image, as the product serves it.
    const png = await QRCode.toBuffer(qr, { type: 'png', errorCorrectionLevel: 'L', margin: 2, width: 300 });
    const phone = emulator.phone('919800000001');
    const device = await phone.scanPng(png);
    expect(device.id).toBe(1);
    const closed = await waitFor('the 515 close', () => first.updates.find((u) => u.connection === 'close'));
    const error = closed.lastDisconnect?.error as { output?: { statusCode?: number } } | undefined;
    expect(error?.output?.statusCode).toBe(515);
    expect(auth.creds.me?.id).toBe('919800000001:1@s.whatsapp.net');

    const second = openSocket(emulator, auth);
    await waitFor('open', () => second.updates.find((u) => u.connection === 'open'), 60_000);
    await waitFor('offline notifications', () => second.updates.find((u) => u.receivedPendingNotifications));
    expect(auth.creds.me?.lid).toBe(`${phone.account.lid}@lid`);
    expect(device.preKeys.size).toBeGreaterThan(0);
    second.sock.end(undefined);
    expect(emulator.gaps).toEqual([]);
  });
});
