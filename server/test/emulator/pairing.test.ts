import { describe, expect, it } from 'vitest';
import { productOnEmulator } from './support/emulator-rig.ts';

const OWN = '919800000061';

/**
 * Link by phone number on the real Baileys socket: rc14's requestPairingCode sends the
 * companion_hello, the emulator's phone enters the code the product shows, the link-code key
 * exchange runs both halves (rc14's companion, the emulator's primary), pair-success, 515, login.
 */
describe('link by phone number, against the emulator', () => {
  const { emulator, product, trace } = productOnEmulator((w) => w.account(OWN, 'Emu shop'));
  let accountId = '';

  it('a wrong code does not link; the code the product shows does: CONNECTED, then 409', async () => {
    const created = await product.call('POST', '/api/create-instance', {
      phoneNumber: `+${OWN}`,
      sessionName: 'By code',
    });
    expect(created.status).toBe(200);
    accountId = created.json.sessionId;
    const res = await product.call('POST', `/api/session/${accountId}/pairing-code`);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const code: string = res.json.code;
    expect(code).toMatch(/^[1-9A-HJ-NP-TV-Z]{8}$/);
    // The companion asked WhatsApp with the account's number.
    expect(emulator.companionAwaitingCode(`${OWN}@s.whatsapp.net`)).toBeDefined();

    const wrong = code === 'ZZZZZZZZ' ? 'YYYYYYYY' : 'ZZZZZZZZ';
    await expect(emulator.phone(OWN).enterPairingCode(wrong)).rejects.toThrow(/does not link/);
    expect((await product.account(accountId))?.status).not.toBe('CONNECTED');
    expect(emulator.world.account(OWN).devices.size).toBe(0);

    const device = await emulator.phone(OWN).enterPairingCode(`${code.slice(0, 4)}-${code.slice(4)}`);
    await product.waitStatus(accountId, 'CONNECTED');
    expect(emulator.world.account(OWN).devices.get(device.id)).toBeDefined();
    const again = await product.call('POST', `/api/session/${accountId}/pairing-code`);
    expect(again.status).toBe(409);
    expect(again.json.message).toBe('This account is already linked');
  });

  it('a restart of the product logs in from the credentials the code linked: no QR, no new device', async () => {
    const devices = emulator.world.account(OWN).devices.size;
    await product.stop();
    await product.start();
    await product.waitStatus(accountId, 'CONNECTED');
    expect(emulator.world.account(OWN).devices.size).toBe(devices);
  });

  it('left no iq unanswered and no message undecrypted', () => {
    expect(emulator.gaps).toEqual([]);
    expect(trace.filter((l) => l.includes('FAILED'))).toEqual([]);
  });
});
