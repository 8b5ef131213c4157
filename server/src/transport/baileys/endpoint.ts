import { WA_CERT_DETAILS } from 'baileys';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';

let warned = false;

/**
 * Where Baileys connects, and which certificate root its noise handshake trusts. Unset, the
 * socket talks to WhatsApp. With a loopback WA_WS_URL (config.ts admits no other) and
 * WA_EMULATOR_ROOT_KEY, the product talks to a wire-level emulator (wa-emulator/): rc14 checks
 * the server's intermediate certificate against its exported WA_CERT_DETAILS
 * (Utils/noise-handler.js processHandshake), so that object is pointed at the emulator's root
 * before the first socket. This is the one seam; Baileys' code stays as published.
 */
export function waEndpoint(
  config: Pick<Config, 'waWsUrl' | 'waEmulatorRootKey'>,
  log: FastifyBaseLogger,
): { waWebSocketUrl?: string } {
  if (!config.waWsUrl) return {};
  if (config.waEmulatorRootKey) {
    WA_CERT_DETAILS.PUBLIC_KEY = Buffer.from(config.waEmulatorRootKey.publicKey);
    WA_CERT_DETAILS.SERIAL = config.waEmulatorRootKey.serial;
  }
  if (!warned) {
    warned = true;
    log.warn(
      { waWsUrl: config.waWsUrl, emulatorRoot: !!config.waEmulatorRootKey },
      config.waEmulatorRootKey
        ? 'WhatsApp emulator: connecting to WA_WS_URL and trusting WA_EMULATOR_ROOT_KEY instead of WhatsApp (tests only)'
        : 'WhatsApp connections go to WA_WS_URL instead of WhatsApp',
    );
  }
  return { waWebSocketUrl: config.waWsUrl };
}
