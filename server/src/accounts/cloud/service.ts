import { CLOUD_TEXTS, type CloudTemplate, type CreateCloudAccountBody } from '@wa/contract';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { cloudAccounts } from '../../db/schema.ts';
import { badRequest, conflict, unavailable } from '../../errors.ts';
import { authorizeAccount } from '../../policy/access.ts';
import { signal } from '../../signals.ts';
import { GraphApiError } from '../../transport/cloud/graph-errors.ts';
import type { UserRow } from '../../users/repository.ts';
import { capabilitiesOf } from '../providers.ts';
import { insertNewAccount, newAccountId } from '../repository.ts';
import { assertRoomForAccount } from '../service.ts';
import { graphClient, readPortfolio, recordPhoneInfo, sealedAccount } from './accounts.ts';
import { storeTemplates, syncTemplatesIfStale, templatesOf } from './templates.ts';

/** Meta's answer as the user reads it: 400 for what they typed wrong, 503 when Meta did not answer. */
function graphProblem(err: unknown): Error {
  if (!(err instanceof GraphApiError)) return err as Error;
  if (err.errorClass === 'network' || err.errorClass === 'backoff') return unavailable(err.message);
  return badRequest(err.message);
}

/**
 * `POST /api/cloud-instances`: checks the ids and the token against Meta (`GET
 * /{phone-number-id}`), reads the templates and the business portfolio once, then stores the account with its secrets
 * sealed. The instance limits count Cloud API accounts too. The account runner connects it.
 */
export async function createCloudAccount(
  ctx: AppContext,
  user: UserRow,
  input: CreateCloudAccountBody,
): Promise<{ accountId: string }> {
  const client = graphClient(ctx.config, input.accessToken);
  const info = await client.getPhoneNumber(input.phoneNumberId).catch((err: unknown) => {
    throw graphProblem(err);
  });
  const templates = await client.listTemplates(input.wabaId).catch((err: unknown) => {
    throw graphProblem(err);
  });
  const portfolioId = await readPortfolio(client, input.wabaId, ctx.log);
  const digits = info.displayPhoneNumber.replace(/\D/g, '') || input.phoneNumberId;
  const accountId = newAccountId(digits);
  await ctx.db.transaction(async (tx) => {
    await assertRoomForAccount(tx, user.id);
    const [taken] = await tx
      .select({ s: cloudAccounts.accountId })
      .from(cloudAccounts)
      .where(eq(cloudAccounts.phoneNumberId, input.phoneNumberId));
    if (taken) throw conflict(CLOUD_TEXTS.alreadyConnected);
    await insertNewAccount(tx, {
      accountId,
      userId: user.id,
      phoneNumber: digits,
      name: input.sessionName,
      kind: 'cloud',
      hasCredentials: true,
    });
    await tx.insert(cloudAccounts).values(
      sealedAccount(ctx.config.secretKey, {
        accountId,
        phoneNumberId: input.phoneNumberId,
        wabaId: input.wabaId,
        portfolioId,
        accessToken: input.accessToken,
        appSecret: input.appSecret,
        verifyToken: input.verifyToken,
      }),
    );
  });
  await recordPhoneInfo(ctx.db, accountId, info);
  await storeTemplates(ctx.db, accountId, templates);
  await signal(ctx, 'session-changed', accountId);
  return { accountId };
}

/**
 * `GET /api/session/:sessionId/templates`: the account's templates, asked of Meta again when the
 * last sync is a minute old. A failed refresh answers the stored list (logged).
 */
export async function listCloudTemplates(
  ctx: AppContext,
  user: UserRow,
  accountId: string,
): Promise<CloudTemplate[]> {
  const account = await authorizeAccount(ctx.db, user, 'read', accountId);
  if (!capabilitiesOf(ctx.config, account.kind).templates) throw badRequest(CLOUD_TEXTS.templateNeedsCloud);
  await syncTemplatesIfStale(ctx, accountId).catch((err: unknown) =>
    ctx.log.warn({ err, accountId }, 'template sync failed: the stored list is answered'),
  );
  return (await templatesOf(ctx.db, accountId)).map((t) => ({
    name: t.name,
    language: t.language,
    category: t.category,
    status: t.status,
    bodyText: t.bodyText,
    parameterCount: t.parameters.length,
    headerFormat: t.headerFormat,
  }));
}
