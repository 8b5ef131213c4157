import type { UserFacingSocketConfig } from 'baileys';
import { describe, expect, it } from 'vitest';
import { createGroupThrough } from '../../src/transport/baileys/group-create.ts';
import { FakeSocket } from '../fakes/baileys-socket.ts';

describe('a new group through rc14', () => {
  it('lists as members only those WhatsApp added, read back from the group after groupCreate', async () => {
    const socket = new FakeSocket({} as UserFacingSocketConfig);
    socket.user = { id: '919800000001@s.whatsapp.net' };
    const group = await createGroupThrough(socket.asSocket(), 'Shop helpers', [
      '919800000002@s.whatsapp.net',
      '919800010000@s.whatsapp.net',
    ]);
    expect(group.subject).toBe('Shop helpers');
    expect(group.id).toMatch(/@g\.us$/);
    // groupCreate's own answer names both; the group's metadata holds the one added.
    expect(socket.metadataQueries).toEqual([group.id]);
    expect(group.participants.map((p) => [p.id, p.admin])).toEqual([
      ['919800000001@s.whatsapp.net', 'superadmin'],
      ['919800000002@s.whatsapp.net', null],
    ]);
  });
});
