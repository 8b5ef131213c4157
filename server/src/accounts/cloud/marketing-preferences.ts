import { sql } from 'drizzle-orm';
import { batcher } from '../../db/batching.ts';
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

/** One send's question to `marketingStoppedFor`. */
type StopQuestion = { accountId: string; to: string; name: string; language: string };

/**
 * Whether a send of this template from `accountId` to `to` (a number's digits or a BSUID) would be
 * a marketing template to someone who stopped them: the template's category is MARKETING (as last
 * synced from Meta) and the person's latest word to the account's business, under any number or
 * BSUID the account's owner knows them by (contacts/people.ts), is a stop.
 *
 * Every send of a template asks it, and a number on Meta's HIGH throughput has 250 sends in
 * flight (transport.ts sendsInFlight): the questions asked while one statement runs go together in
 * the next (db/batching.ts), each answered as it would be alone.
 */
export function marketingStoppedFor(
  db: Db,
  accountId: string,
  to: string,
  template: { name: string; language: string },
): Promise<boolean> {
  let ask = stopBatches.get(db);
  if (!ask) {
    ask = batcher<StopQuestion, boolean>(
      (questions) => marketingStoppedOf(db, questions),
      () => undefined,
    );
    stopBatches.set(db, ask);
  }
  return ask({ accountId, to, name: template.name, language: template.language });
}

const stopBatches = new WeakMap<Db, (q: StopQuestion) => Promise<boolean>>();

/** `marketingStoppedFor` of each question, in one statement. */
async function marketingStoppedOf(db: Db, questions: StopQuestion[]): Promise<boolean[]> {
  const stopped = await queryRows<{ i: number }>(
    db,
    sql`SELECT q.i::int AS i
        FROM unnest(${sql.param(questions.map((q) => q.accountId))}::text[],
                    ${sql.param(questions.map((q) => q.to))}::text[],
                    ${sql.param(questions.map((q) => q.name))}::text[],
                    ${sql.param(questions.map((q) => q.language))}::text[])
             WITH ORDINALITY AS q(session_id, address, name, language, i)
        WHERE EXISTS (
          SELECT 1 FROM cloud_templates t
          JOIN cloud_accounts a ON a.session_id = t.session_id
          JOIN wa_sessions s ON s.session_id = t.session_id
          JOIN cloud_marketing_preferences m ON m.waba_id = a.waba_id AND m.stopped
            AND (m.address = q.address OR m.address IN (
              SELECT p.value FROM person_addresses x
              JOIN person_addresses p ON p.person_id = x.person_id AND p.kind IN ('phone', 'bsuid')
              WHERE x.user_id = s.user_id AND x.value = q.address AND x.kind IN ('phone', 'bsuid')))
          WHERE t.session_id = q.session_id AND t.name = q.name AND t.language = q.language
            AND upper(t.category) = 'MARKETING')`,
  );
  const yes = new Set(stopped.map((r) => r.i - 1));
  return questions.map((_, i) => yes.has(i));
}
