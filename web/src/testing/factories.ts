import type { Account, CloudTemplate, GroupChat, MessageJob } from '@wa/contract';

/** Test factories: one linked account, group and job as the API gives them, changed by `over`. */

export const buildAccount = (over: Partial<Account> = {}): Account => ({
  id: 's1',
  sessionId: '919800000001_abc',
  phoneNumber: '919800000001',
  sessionName: 'Shop',
  status: 'CONNECTED',
  statusReason: null,
  sendPaused: false,
  sendPausedUntil: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

export const buildGroup = (over: Partial<GroupChat> = {}): GroupChat => ({
  groupId: '1@g.us',
  groupName: 'Family 1',
  adminPhone: ['919800000001'],
  groupLink: 'https://chat.whatsapp.com/abc',
  participantCount: 10,
  adminCount: 1,
  creationDate: '2026-01-05T09:07:00',
  updatedDate: '2026-11-20T21:30:00',
  owner: '919800000001',
  participants: [],
  lastMessage: null,
  ...over,
});

/** A finished group text job: 2 of 3 sent unless `over` says otherwise. */
export const buildJob = (over: Partial<MessageJob> = {}): MessageJob => ({
  id: 'job1',
  sessionId: '919800000001_abc',
  audience: 'groups',
  messageType: 'text',
  isScheduled: false,
  scheduledTime: null,
  status: 'completed',
  statusReason: null,
  progress: { completed: 3, total: 3, percentComplete: 100 },
  results: { success: 2, failed: 1, delivered: 0, read: 0 },
  delivery: { delivered: 0, read: 0, replied: 0, undelivered: 0 },
  createdAt: '2026-11-20T10:00:00.000Z',
  elapsedTimeMs: 1200,
  messageContent: 'Hello',
  mediaMime: null,
  fileName: null,
  ...over,
});

/** An approved utility template of a Cloud API account with one value, `{{1}}`. */
export const buildTemplate = (over: Partial<CloudTemplate> = {}): CloudTemplate => ({
  name: 'order_update',
  language: 'en_US',
  category: 'UTILITY',
  status: 'APPROVED',
  parameterCount: 1,
  bodyText: 'Your order {{1}} has shipped.',
  ...over,
});
