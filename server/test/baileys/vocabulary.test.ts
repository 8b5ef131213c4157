import {
  addressOfChatId,
  bareJid,
  chatIdOfAddress,
  chatIdOfPhone,
  displayAddress,
  isActive,
  isBsuid,
  isFinished,
  isGroupJid,
  isLidJid,
  isPausable,
  isPhoneJid,
  isPlainPhoneChatId,
  jidUser,
  parsePoll,
  phoneOfJid,
  pollOfValue,
  storedPoll,
} from '@wa/contract';
import { describe, expect, it } from 'vitest';
import { individualChatId } from '../../src/messaging/compose.ts';

/** contract/jid.ts, job-status.ts and poll.ts: the vocabulary the server and the web app share. */
describe('jid', () => {
  it('tells a phone, a group and a LID apart', () => {
    expect(chatIdOfPhone('919800015838')).toBe('919800015838@s.whatsapp.net');
    expect([isPhoneJid, isGroupJid, isLidJid].map((f) => f('919800015838@s.whatsapp.net'))).toEqual([
      true,
      false,
      false,
    ]);
    expect(isGroupJid('120363012345678901@g.us')).toBe(true);
    expect(isLidJid('123456789012345@lid')).toBe(true);
  });
  it('reads the phone of a phone JID only, without its device', () => {
    expect(phoneOfJid('919800015838:12@s.whatsapp.net')).toBe('919800015838');
    expect(phoneOfJid('919800015838@c.us')).toBe('919800015838');
    expect(phoneOfJid('123456789012345@lid')).toBeNull();
    expect(phoneOfJid('120363012345678901@g.us')).toBeNull();
    expect(phoneOfJid(null)).toBeNull();
    expect(jidUser('919800015838:3@s.whatsapp.net')).toBe('919800015838');
    expect(jidUser('919800015838')).toBe('919800015838');
  });
  it('takes a phone chat id as chatIdOfPhone writes it as it is, and rebuilds any other spelling', () => {
    expect(isPlainPhoneChatId('919800015838@s.whatsapp.net')).toBe(true);
    for (const other of [
      '919800015838:3@s.whatsapp.net',
      '12345@s.whatsapp.net',
      '919800015838@c.us',
      ' 919800015838@s.whatsapp.net',
    ])
      expect(isPlainPhoneChatId(other)).toBe(false);
    // The quick path and the rebuilding path give the same chat id.
    expect(individualChatId('919800015838@s.whatsapp.net', '91')).toBe(chatIdOfPhone('919800015838'));
    expect(individualChatId('919800015838:3@s.whatsapp.net', '91')).toBe('919800015838@s.whatsapp.net');
    expect(individualChatId('12345@s.whatsapp.net', '91')).toBeNull();
    expect(individualChatId('1234567890123456@s.whatsapp.net', '91')).toBeNull();
  });
  it('reads a person’s address from a chat id and writes it back; a username has no chat id', () => {
    expect(addressOfChatId('919800015838:3@s.whatsapp.net')).toEqual({
      kind: 'phone',
      value: '919800015838',
    });
    expect(addressOfChatId('123456789012345:2@lid')).toEqual({ kind: 'lid', value: '123456789012345' });
    expect(addressOfChatId('IN.13491208655302741918')).toEqual({
      kind: 'bsuid',
      value: 'IN.13491208655302741918',
    });
    expect(addressOfChatId('120363012345678901@g.us')).toBeNull();
    expect(addressOfChatId('in.1349')).toBeNull();
    expect(isBsuid('US.13491208655302741918')).toBe(true);
    expect(isBsuid('919800015838')).toBe(false);
    for (const chatId of ['919800015838@s.whatsapp.net', '123456789012345@lid', 'IN.13491208655302741918'])
      expect(chatIdOfAddress(addressOfChatId(chatId)!)).toBe(chatId);
    expect(chatIdOfAddress({ kind: 'username', value: 'asha.k' })).toBeNull();
  });
  it('shows the phone where known, else the username, else a short id: never a raw @lid', () => {
    expect(displayAddress('919800015838@s.whatsapp.net')).toBe('919800015838');
    expect(displayAddress('123456789012345@lid', { phone: '919800015838' })).toBe('919800015838');
    expect(displayAddress('123456789012345@lid', { username: 'asha.k' })).toBe('@asha.k');
    expect(displayAddress('123456789012345@lid')).toBe('LID 123456…2345');
    expect(displayAddress('IN.13491208655302741918')).toBe('IN.134…1918');
    expect(displayAddress('120363012345678901@g.us')).toBe('120363012345678901@g.us');
  });
  it('drops the device for comparing, and refuses what is no user@server', () => {
    expect(bareJid('919800015838:3@s.whatsapp.net')).toBe('919800015838@s.whatsapp.net');
    expect(bareJid('123:4@lid')).toBe('123@lid');
    expect(bareJid('919800015838')).toBeNull();
    expect(bareJid('@s.whatsapp.net')).toBeNull();
    expect(bareJid('919800015838@')).toBeNull();
  });
});

describe('job statuses', () => {
  it('sorts each status by what may be done with the job', () => {
    const all = ['pending', 'processing', 'scheduled', 'paused', 'completed', 'failed'] as const;
    expect(all.filter(isPausable)).toEqual(['pending', 'processing', 'scheduled']);
    expect(all.filter(isActive)).toEqual(['pending', 'processing', 'paused']);
    expect(all.filter(isFinished)).toEqual(['completed', 'failed']);
  });
});

describe('poll', () => {
  it('reads back what it stores, and refuses what is no poll', () => {
    const poll = { pollName: 'Q?', pollOptions: ['a', 'b'], allowMultipleAnswers: true };
    expect(parsePoll(JSON.stringify(storedPoll(poll)))).toEqual(poll);
    expect(pollOfValue({ pollName: 'Q', pollOptions: ['a', 2, 'b'] })).toEqual({
      pollName: 'Q',
      pollOptions: ['a', 'b'],
      allowMultipleAnswers: false,
    });
    expect(parsePoll('plain text')).toBeNull();
    expect(pollOfValue({ pollOptions: ['a'] })).toBeNull();
  });
});
