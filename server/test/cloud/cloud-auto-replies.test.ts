import { describe, expect, it } from 'vitest';
import { useCloudApp } from '../fakes/cloud-rig.ts';
import { balanceOf } from '../fakes/messaging.ts';
import { DB_KINDS } from '../helpers.ts';
import { waitFor } from '../wait.ts';

const BSUID = 'IN.13491208655302761061';
const PHONE = '919811100061';

/**
 * A Cloud number's keyword auto-replies reach a person Meta names only by their business-scoped
 * user id, and answer a person once between that id and the number Meta shows later.
 */
describe.each(DB_KINDS)('auto-replies of a Cloud number on %s', (kind) => {
  const rig = useCloudApp(kind);

  it('answers a person known only by BSUID, and not again when they write from their number within the period', async () => {
    const a = await rig.cloudAccount(10);
    const set = await rig.t.app.inject({
      method: 'PUT',
      url: `/api/session/${a.accountId}/auto-replies`,
      headers: { authorization: `Bearer ${a.token}` },
      payload: {
        rules: [
          { keyword: 'price', match: 'contains', reply: { type: 'string', content: 'Our price list' } },
        ],
      },
    });
    expect(set.statusCode, set.body).toBe(200);
    const repliesTo = (to: string) =>
      rig.fake.sends.filter((s) => s.to === to && s.body.text?.body === 'Our price list').length;

    // Meta hides her number: the message names her by BSUID only.
    rig.fake.sendInbound(PHONE, 'What is the price?', 'Meera', { userId: BSUID, hidden: true });
    await waitFor('the reply to her BSUID', async () => repliesTo(BSUID) === 1);

    // Later Meta names her number beside the BSUID (one person), and she asks again from it.
    rig.fake.sendInbound(PHONE, 'price please', 'Meera', { userId: BSUID });
    // A later text of another person shows hers was taken.
    rig.fake.sendInbound('919811100062', 'price?', 'Ravi');
    await waitFor('the reply to the other person', async () => repliesTo('919811100062') === 1);
    expect(repliesTo(PHONE)).toBe(0);
    expect(repliesTo(BSUID)).toBe(1);
    expect(await balanceOf(rig.t.db, a.user.id)).toBe(8);
  });
});
