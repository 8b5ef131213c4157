/// <reference path="./modules.d.ts" />

export { makeCertChain, makeRootKey, type RootKey, rootKeyEnv } from './certs.ts';
export { Connection } from './connection.ts';
export { type EmulatorOptions, WaEmulator } from './emulator.ts';
export { iqKey, KNOWN_IQS } from './iq.ts';
export { MediaHost, type Upload } from './media-host.ts';
export { type Channel, channelPost, NEWSLETTER_ANSWERS } from './newsletters.ts';
export { Phone, parsePairingQr } from './phone.ts';
export { type PollToVote, receivedPoll, vote } from './poll-vote.ts';
export { readQrPng } from './qr-reader.ts';
export { type Account, type Group, type GroupMember, type LinkedDevice, World } from './world.ts';
