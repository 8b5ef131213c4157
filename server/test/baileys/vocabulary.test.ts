import {
  bareJid,
  chatIdOfPhone,
  isActive,
  isFinished,
  isGroupJid,
  isLidJid,
  isPausable,
  isPhoneJid,
  jidUser,
  parsePoll,
  phoneOfJid,
  pollOfValue,
  storedPoll,
} from '@wa/contract';
import { describe, expect, it } from 'vitest';

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
