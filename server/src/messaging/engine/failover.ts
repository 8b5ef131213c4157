import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import { isPausableJob } from '../../db/vocabulary-sql.ts';
import { heldByPause } from './claim.ts';
import { ms, sendPausedNow as pausedNow } from './rules.ts';

/**
 * reassign: the failover of jobs spread over accounts (FAILOVER_AFTER_MS), up to `limit` recipients per
 * statement. An account is down since its status last changed (or, still marked CONNECTED,
 * since its lease ran out); one whose one-to-one chats are restricted for longer than the
 * threshold leaves too, but only with the recipients its restriction holds back (claim.ts
 * heldByPause: new chats); a chat that carries the contact's privacy token, which the restricted
 * account may still send, stays with it. Targets: the job's accounts of the same kind (a linked phone's
 * recipient of a template job holds the template's text, a Cloud one its values; a cold number
 * must not move to a phone), of the job's user, that can send and are not restricted, in the
 * job's order. Only `queued` rows are locked and moved (SKIP LOCKED: a
 * row a claim holds is being sent by its account), so a recipient is never sent twice. Returns
 * the accounts that got recipients (to wake them).
 */
export async function reassign(db: Db, afterMs: number, limit: number): Promise<string[]> {
  const moved = await queryRows<{ session_id: string }>(
    db,
    sql`WITH spread AS (
          SELECT j.id, j.user_id, j.session_ids FROM message_jobs j
          WHERE j.session_ids IS NOT NULL AND ${isPausableJob(sql.raw('j.status'))}
        ), health AS (
          SELECT s.session_id, s.user_id, s.kind,
            (s.status = 'CONNECTED' AND s.desired_state = 'active' AND s.owner_node IS NOT NULL
              AND s.lease_expires_at > now()) AS up,
            ${pausedNow(sql.raw('s'))} AS restricted,
            (${pausedNow(sql.raw('s'))} AND (s.send_paused_until IS NULL OR s.send_paused_until > now() + ${ms(afterMs)}))
              AS restricted_long,
            CASE WHEN s.status <> 'CONNECTED' OR s.desired_state = 'stopped' THEN s.status_changed_at
                 ELSE coalesce(s.lease_expires_at, s.status_changed_at) END AS down_since
          FROM wa_sessions s
          WHERE s.session_id IN (SELECT unnest(session_ids) FROM spread)
        ), gone AS (
          SELECT t.session_id, coalesce(h.kind, 'linked') AS kind, h.restricted_long,
            coalesce(h.session_id IS NULL OR (NOT h.up AND h.down_since <= now() - ${ms(afterMs)}), false) AS down
          FROM (SELECT DISTINCT unnest(session_ids) AS session_id FROM spread) t
          LEFT JOIN health h ON h.session_id = t.session_id
        ), leaving AS (
          -- Only restricted (up): it keeps what it may still send.
          SELECT session_id, kind, NOT down AS only_restricted FROM gone WHERE down OR restricted_long
        ), targets AS (
          SELECT sp.id AS job_id, h.kind, array_agg(h.session_id ORDER BY a.ord) AS ids
          FROM spread sp
          CROSS JOIN LATERAL unnest(sp.session_ids) WITH ORDINALITY AS a(session_id, ord)
          JOIN health h ON h.session_id = a.session_id AND h.user_id = sp.user_id AND h.up AND NOT h.restricted
          GROUP BY sp.id, h.kind
        ), picked AS (
          SELECT r.id, r.job_id, l.kind FROM message_job_recipients r
          JOIN leaving l ON l.session_id = r.session_id
          WHERE r.status = 'queued'
            AND (NOT l.only_restricted OR ${heldByPause(sql.raw('r'), sql.raw('r.session_id'))})
            AND EXISTS (SELECT 1 FROM targets tg WHERE tg.job_id = r.job_id AND tg.kind = l.kind)
          ORDER BY r.id
          LIMIT ${limit}
          FOR UPDATE OF r SKIP LOCKED
        ), numbered AS (
          SELECT p.id, tg.ids[(row_number() OVER (PARTITION BY p.job_id, p.kind ORDER BY p.id) - 1) % cardinality(tg.ids) + 1] AS to_session
          FROM picked p JOIN targets tg ON tg.job_id = p.job_id AND tg.kind = p.kind
        )
        UPDATE message_job_recipients r SET session_id = n.to_session, updated_at = now()
        FROM numbered n WHERE r.id = n.id AND r.status = 'queued'
        RETURNING r.session_id`,
  );
  return [...new Set(moved.map((m) => m.session_id))];
}
