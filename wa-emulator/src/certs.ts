import { Curve, type KeyPair, proto } from 'baileys';

/** The emulator's own trust root: what WhatsApp's "WhatsAppLongTerm1" key is to the real servers. */
export type RootKey = { keyPair: KeyPair; serial: number };

export function makeRootKey(serial = 0): RootKey {
  return { keyPair: Curve.generateKeyPair(), serial };
}

/** `WA_EMULATOR_ROOT_KEY` for the product: the root's public key in hex, and its serial when not 0. */
export function rootKeyEnv(root: RootKey): string {
  const hex = Buffer.from(root.keyPair.public).toString('hex');
  return root.serial === 0 ? hex : `${hex}:${root.serial}`;
}

/**
 * The certificate chain the server hello carries (rc14 Utils/noise-handler.js processHandshake):
 * an intermediate certificate signed by the root, whose issuerSerial is the root's serial, and a
 * leaf for the server's static noise key signed by the intermediate's key.
 */
export function makeCertChain(root: RootKey, serverStatic: KeyPair): Uint8Array {
  const intermediateKey = Curve.generateKeyPair();
  const now = Math.floor(Date.now() / 1000);
  const intermediateDetails = proto.CertChain.NoiseCertificate.Details.encode({
    serial: root.serial + 1,
    issuerSerial: root.serial,
    key: intermediateKey.public,
    notBefore: now - 3600,
    notAfter: now + 365 * 86400,
  }).finish();
  const leafDetails = proto.CertChain.NoiseCertificate.Details.encode({
    serial: root.serial + 2,
    issuerSerial: root.serial + 1,
    key: serverStatic.public,
    notBefore: now - 3600,
    notAfter: now + 30 * 86400,
  }).finish();
  return proto.CertChain.encode({
    intermediate: {
      details: intermediateDetails,
      signature: Curve.sign(root.keyPair.private, intermediateDetails),
    },
    leaf: { details: leafDetails, signature: Curve.sign(intermediateKey.private, leafDetails) },
  }).finish();
}
