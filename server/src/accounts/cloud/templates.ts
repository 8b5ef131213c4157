import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/client.ts';
import { cloudAccounts, cloudTemplates } from '../../db/schema.ts';
import { type GraphTemplate, summarizeTemplate } from '../../transport/cloud/templates.ts';
import { type CloudCredentials, cloudCredentials, graphClient } from './accounts.ts';

/** Templates are asked of Meta at most once a minute per account. */
export const TEMPLATE_SYNC_MS = 60_000;

export type TemplateRow = typeof cloudTemplates.$inferSelect;

/** Replaces the account's templates with Meta's list, in one transaction. */
export async function storeTemplates(db: Db, accountId: string, templates: GraphTemplate[]): Promise<void> {
  const now = new Date();
  await db.transaction(async (tx) => {
    await tx.delete(cloudTemplates).where(eq(cloudTemplates.accountId, accountId));
    const seen = new Set<string>();
    const rows = templates
      .map(summarizeTemplate)
      .filter((t) => {
        const key = `${t.name}\u0000${t.language}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      })
      .map((t) => ({
        accountId,
        name: t.name,
        language: t.language,
        category: t.category,
        status: t.status,
        bodyText: t.bodyText,
        parameters: t.parameters,
        named: t.named,
        headerFormat: t.headerFormat,
        syncedAt: now,
      }));
    if (rows.length > 0) await tx.insert(cloudTemplates).values(rows);
    await tx
      .update(cloudAccounts)
      .set({ templatesSyncedAt: now })
      .where(eq(cloudAccounts.accountId, accountId));
  });
}

/**
 * Asks Meta for the account's templates when the last sync is older than a minute. The stamp is
 * taken first (one statement), so two nodes or two tabs asking at once make one call.
 */
export async function syncTemplatesIfStale(ctx: AppContext, accountId: string): Promise<void> {
  const taken = await ctx.db
    .update(cloudAccounts)
    .set({ templatesSyncedAt: new Date() })
    .where(
      and(
        eq(cloudAccounts.accountId, accountId),
        or(
          isNull(cloudAccounts.templatesSyncedAt),
          lt(cloudAccounts.templatesSyncedAt, sql`now() - make_interval(secs => ${TEMPLATE_SYNC_MS / 1000})`),
        ),
      ),
    )
    .returning({ accountId: cloudAccounts.accountId });
  if (taken.length === 0) return;
  const creds = await cloudCredentials(ctx.db, ctx.config.secretKey, accountId);
  if (!creds) return;
  await syncTemplates(ctx, creds);
}

export async function syncTemplates(ctx: AppContext, creds: CloudCredentials): Promise<void> {
  const templates = await graphClient(ctx.config, creds.accessToken).listTemplates(creds.wabaId);
  await storeTemplates(ctx.db, creds.accountId, templates);
}

export async function templatesOf(db: Db, accountId: string): Promise<TemplateRow[]> {
  return db
    .select()
    .from(cloudTemplates)
    .where(eq(cloudTemplates.accountId, accountId))
    .orderBy(cloudTemplates.name, cloudTemplates.language);
}

export async function findTemplate(
  db: Db,
  accountId: string,
  name: string,
  language: string,
): Promise<TemplateRow | undefined> {
  const [row] = await db
    .select()
    .from(cloudTemplates)
    .where(
      and(
        eq(cloudTemplates.accountId, accountId),
        eq(cloudTemplates.name, name),
        eq(cloudTemplates.language, language),
      ),
    );
  return row;
}
