import type { SendBody, SendEstimateResponse } from '@wa/contract';
import { findTemplate } from '../../accounts/cloud/templates.ts';
import { capabilitiesOf } from '../../accounts/providers.ts';
import type { AppContext } from '../../context.ts';
import { readCreditPrices } from '../../credits/prices.ts';
import { MESSAGES } from '../../errors.ts';
import { authorizeAccount } from '../../policy/access.ts';
import type { UserRow } from '../../users/repository.ts';
import { priceOf } from '../cloud/cost.ts';
import { recipientsYielding } from '../compose.ts';
import { gatherIndividuals } from './personalise.ts';
import { routeRecipients } from './route.ts';
import { assertCreditsForIds, sharingAccounts } from './send.ts';

/**
 * What a send to phone numbers would do before it is made: how many recipients go
 * through the linked phones and through the Cloud API accounts (the split the send itself makes,
 * `coldToCloud` included), their credits at each kind's price, and Meta's charge for the Cloud
 * share of a template at its category's rate.
 */
export async function estimateSend(
  ctx: AppContext,
  user: UserRow,
  accountId: string,
  body: SendBody,
): Promise<SendEstimateResponse> {
  const account = await authorizeAccount(ctx.db, user, 'act', accountId, MESSAGES.noSession);
  const accounts = await sharingAccounts(ctx, user, account, body, 'individuals');
  const cc = ctx.config.defaultCountryCode;
  const prices = await readCreditPrices(ctx.db);
  // Bounded as the send it estimates: short of credits for the ids as given, refused before parsing.
  await assertCreditsForIds(ctx, user, body, 'individuals', Math.min(...accounts.map((a) => prices[a.kind])));
  const individuals = await gatherIndividuals(ctx.db, user, body, cc);
  const chatIds = await recipientsYielding(individuals.chatIds, 'individuals', cc);
  // Recipients per account: counted, not listed (200,000 of them cost nothing per recipient here).
  const perAccount = accounts.map(() => 0);
  if (accounts.length > 1)
    for (const i of await routeRecipients(ctx, accounts, chatIds, body)) perAccount[i]!++;
  else perAccount[0] = chatIds.length;
  const viaCloud = accounts.reduce(
    (sum, a, i) => sum + (capabilitiesOf(ctx.config, a.kind).coldOutreach ? perAccount[i]! : 0),
    0,
  );
  let metaCostUnits: number | null = null;
  const content = body.content;
  // Meta's charge, by the template's category on an account that sends templates.
  const cloud = accounts.find((a) => capabilitiesOf(ctx.config, a.kind).templates);
  if (body.type === 'template' && cloud && content && typeof content === 'object' && 'language' in content) {
    const template = await findTemplate(ctx.db, cloud.accountId, content.name, content.language);
    if (template) metaCostUnits = (await priceOf(ctx.db, template.category)) * viaCloud;
  }
  return {
    success: true,
    recipients: chatIds.length,
    viaPhones: chatIds.length - viaCloud,
    viaCloud,
    credits: accounts.reduce((sum, a, i) => sum + perAccount[i]! * prices[a.kind], 0),
    metaCostUnits,
  };
}
