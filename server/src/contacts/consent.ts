import { CONSENT_TEXTS, type ConsentGrant, isBsuid, MAX_PURPOSE } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';
import { consentGrants } from '../db/schema.ts';
import { badRequest } from '../errors.ts';
import { newId } from '../ids.ts';

/**
 * Consent records. A grant row describes one confirmation (an import the user said
 * the people agreed to, or a group the numbers came from); each contact row points at its grant,
 * so a 1,000,000-row import adds one row here and one column there.
 */

export type GrantInput = {
  userId: string;
  source: 'import' | 'group';
  purpose: string | null;
  fileName?: string | null;
  listId: string;
  groupId?: string | null;
  groupName?: string | null;
  accountId?: string | null;
  actor: { id: string; username: string };
};

/** The import form's consent fields: null when not confirmed; a confirmation needs a purpose. */
export function consentOfImport(fields: Record<string, string>): { purpose: string } | null {
  if (fields.consentConfirmed !== 'true') return null;
  const purpose = (fields.consentPurpose ?? '').trim();
  if (purpose === '') throw badRequest(CONSENT_TEXTS.purposeRequired);
  if (purpose.length > MAX_PURPOSE) throw badRequest(CONSENT_TEXTS.purposeTooLong);
  return { purpose };
}

export async function insertGrant(db: Db, input: GrantInput): Promise<string> {
  const id = newId();
  await db.insert(consentGrants).values({
    id,
    userId: input.userId,
    source: input.source,
    purpose: input.purpose,
    fileName: input.fileName ?? null,
    listId: input.listId,
    groupId: input.groupId ?? null,
    groupName: input.groupName ?? null,
    accountId: input.accountId ?? null,
    actorId: input.actor.id,
    actor: input.actor.username,
  });
  return id;
}

/** The numbers a grant covered, once its contacts are in. */
export async function countGrant(db: Db, grantId: string, numbers: number): Promise<void> {
  await db.execute(sql`UPDATE consent_grants SET numbers = ${numbers} WHERE id = ${grantId}`);
}

type GrantRow = typeof consentGrants.$inferSelect;

export const presentGrant = (g: GrantRow): ConsentGrant => ({
  grantId: g.id,
  source: g.source,
  purpose: g.purpose,
  fileName: g.fileName,
  groupId: g.groupId,
  groupName: g.groupName,
  by: g.actor,
  at: g.at.toISOString(),
});

/**
 * Numbers of `numbers` without consent for this user: on none of the user's lists with a grant.
 * Looked up through the partial index of consented numbers, in slices.
 */
export async function withoutConsentAmong(db: Db, userId: string, numbers: string[]): Promise<Set<string>> {
  const consented = new Set<string>();
  for (let i = 0; i < numbers.length; i += 10_000) {
    const rows = await queryRows<{ n: string }>(
      db,
      sql`SELECT DISTINCT c.phone_number AS n FROM contacts c JOIN contact_lists l ON l.id = c.list_id
          WHERE c.phone_number = ANY(${sql.param(numbers.slice(i, i + 10_000))}::text[])
            AND c.consent_grant_id IS NOT NULL AND l.user_id = ${userId}`,
    );
    for (const r of rows) consented.add(r.n);
  }
  // A BSUID has the consent given for its person's number (docs/people.md).
  const bsuids = numbers.filter(isBsuid);
  if (bsuids.length > 0) {
    const rows = await queryRows<{ n: string }>(
      db,
      sql`SELECT DISTINCT b.value AS n FROM person_addresses b
          JOIN person_addresses p ON p.person_id = b.person_id AND p.kind = 'phone'
          JOIN contacts c ON c.phone_number = p.value AND c.consent_grant_id IS NOT NULL
          JOIN contact_lists l ON l.id = c.list_id AND l.user_id = ${userId}
          WHERE b.user_id = ${userId} AND b.kind = 'bsuid' AND b.value = ANY(${sql.param(bsuids)}::text[])`,
    );
    for (const r of rows) consented.add(r.n);
  }
  return new Set(numbers.filter((n) => !consented.has(n)));
}
