import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';

/**
 * People who stopped marketing messages from a Cloud API business (table
 * cloud_marketing_preferences). Meta says so two ways: the `user_preferences` webhook (stop or
 * resume) and error 131050 on a marketing template. The business is the WhatsApp Business Account:
 * the webhook is subscribed per account and names it (`entry[].id`). The person is the address
 * Meta gave: `wa_id` (digits), else the business-scoped `user_id`.
 */

export type MarketingPreference = {
  wabaId: string;
  address: string;
  stopped: boolean;
  at: Date;
  source: 'user_preferences' | 'error_131050';
};

/** Records a stop or a resume; an older event than the one kept changes nothing (Meta delivers in no set order). */
export async function recordMarketingPreference(db: Db, p: MarketingPreference): Promise<void> {
  await db.execute(
    sql`INSERT INTO cloud_marketing_preferences AS m (waba_id, address, stopped, at, source)
        VALUES (${p.wabaId}, ${p.address}, ${p.stopped}, ${p.at.toISOString()}::timestamptz, ${p.source})
        ON CONFLICT (waba_id, address) DO UPDATE
          SET stopped = EXCLUDED.stopped, at = EXCLUDED.at, source = EXCLUDED.source
          WHERE m.at <= EXCLUDED.at`,
  );
}

/**
 * Whether a send of this template from `accountId` to `to` (a number's digits or a BSUID) would be
 * a marketing template to someone who stopped them: the template's category is MARKETING (as last
 * synced from Meta) and the person's latest word to the account's business, under any number or
 * BSUID the account's owner knows them by (contacts/people.ts), is a stop.
 */
export async function marketingStoppedFor(
  db: Db,
  accountId: string,
  to: string,
  template: { name: string; language: string },
): Promise<boolean> {
  const [row] = await queryRows<{ stopped: boolean }>(
    db,
    sql`SELECT EXISTS (
          SELECT 1 FROM cloud_templates t
          JOIN cloud_accounts a ON a.session_id = t.session_id
          JOIN wa_sessions s ON s.session_id = t.session_id
          JOIN cloud_marketing_preferences m ON m.waba_id = a.waba_id AND m.stopped
            AND (m.address = ${to} OR m.address IN (
              SELECT p.value FROM person_addresses x
              JOIN person_addresses p ON p.person_id = x.person_id AND p.kind IN ('phone', 'bsuid')
              WHERE x.user_id = s.user_id AND x.value = ${to} AND x.kind IN ('phone', 'bsuid')))
          WHERE t.session_id = ${accountId} AND t.name = ${template.name} AND t.language = ${template.language}
            AND upper(t.category) = 'MARKETING') AS stopped`,
  );
  return row?.stopped ?? false;
}
