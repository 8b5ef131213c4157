import type { Db } from '../db/client.ts';
import { consentGrants, contactLists, contacts, optOuts } from '../db/schema.ts';
import { newId } from '../ids.ts';

const NAMES = ['Asha', 'Ravi', 'Meena', 'Imran', 'Priya', 'Suresh', 'Lakshmi', 'Arjun'];

/**
 * The demo's consent records: a list imported with the user's confirmation and its
 * purpose, and a customer who opted out by writing 'बंद करो' (kept with the word and message).
 */
export async function seedConsentDemo(
  db: Db,
  user: { id: string; username: string },
  numbers: readonly string[],
): Promise<void> {
  const listId = newId();
  const grantId = newId();
  const chosen = numbers.slice(0, NAMES.length);
  await db.transaction(async (tx) => {
    await tx
      .insert(contactLists)
      .values({ id: listId, userId: user.id, name: 'Regular customers', fields: ['name'] });
    await tx.insert(consentGrants).values({
      id: grantId,
      userId: user.id,
      source: 'import',
      purpose: 'Order updates and festival offers',
      fileName: 'regular-customers.csv',
      listId,
      actorId: user.id,
      actor: user.username,
      numbers: chosen.length,
    });
    await tx.insert(contacts).values(
      chosen.map((phoneNumber, i) => ({
        listId,
        position: i + 1,
        phoneNumber,
        fields: { name: NAMES[i]! },
        consentGrantId: grantId,
      })),
    );
    await tx.insert(optOuts).values({
      userId: user.id,
      phoneNumber: chosen[chosen.length - 1]!,
      source: 'reply',
      keyword: 'बंद करो',
      language: 'hi',
      message: 'बंद करो',
    });
  });
}
