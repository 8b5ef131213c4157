import { CLOUD_TEXTS, jidUser } from '@wa/contract';
import { inServiceWindow } from '../../accounts/cloud/service-windows.ts';
import { findTemplate, syncTemplatesIfStale } from '../../accounts/cloud/templates.ts';
import { capabilitiesOf } from '../../accounts/providers.ts';
import type { AccountRow } from '../../accounts/repository.ts';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../errors.ts';
import type { Audience, ComposedMessage } from '../compose.ts';

/**
 * What a send may be for the kinds of its accounts: a Cloud API account sends one-to-one
 * messages only, templates or (inside the 24-hour window) texts; a template goes only through Cloud
 * API accounts (linked phones sharing the job send its body as text), must be APPROVED on each of them, and has one value per body variable. Returns the
 * message with the template's category and variable names filled in.
 */
export async function checkKindOfSend(
  ctx: AppContext,
  accounts: AccountRow[],
  message: ComposedMessage,
  audience: Audience,
): Promise<ComposedMessage> {
  const can = accounts.map((a) => capabilitiesOf(ctx.config, a.kind));
  if (audience === 'groups' && can.some((c) => !c.groups)) throw badRequest(CLOUD_TEXTS.groupsLinkedOnly);
  if (message.type !== 'template') {
    if (
      (message.type === 'media' && can.some((c) => !c.media)) ||
      (message.type === 'poll' && can.some((c) => !c.polls))
    )
      throw badRequest(CLOUD_TEXTS.cloudNeedsTemplate);
    return message;
  }
  const cloud = accounts.filter((_, i) => can[i]!.templates);
  // Linked phones sharing the job send the template's body as text; a Cloud account must be one of them.
  if (cloud.length === 0) throw badRequest(CLOUD_TEXTS.templateNeedsCloud);
  const { name, language, parameters } = message.template;
  let filled = message.template;
  for (const account of cloud) {
    await syncTemplatesIfStale(ctx, account.accountId).catch((err: unknown) =>
      ctx.log.warn({ err, accountId: account.accountId }, 'template sync failed: the stored list is used'),
    );
    const template = await findTemplate(ctx.db, account.accountId, name, language);
    if (!template) throw badRequest(CLOUD_TEXTS.noSuchTemplate(name, language));
    if (template.status !== 'APPROVED') throw badRequest(CLOUD_TEXTS.notApproved(name, template.status));
    if (template.parameters.length !== parameters.length)
      throw badRequest(CLOUD_TEXTS.parameterCount(name, template.parameters.length, parameters.length));
    filled = {
      name,
      language,
      category: template.category,
      parameters,
      ...(template.named ? { parameterNames: template.parameters } : {}),
      // Kept for every template job: the screens and the CSV show its text filled, and linked
      // phones sharing the job send it as text.
      bodyText: template.bodyText,
    };
  }
  return { type: 'template', template: filled };
}

/**
 * Free-form messages (text) through a Cloud API account go only to numbers inside its 24-hour
 * customer service window (Meta, "Service messages": "When the window closes, you can only send
 * pre-approved template messages"; developers.facebook.com/documentation/business-messaging/whatsapp/messages/send-messages).
 * Refused at acceptance, naming how many numbers are outside, for the recipients each Cloud
 * account would send (`accountOf` a recipient's index; one account: all of them).
 */
export async function checkServiceWindows(
  ctx: AppContext,
  accounts: AccountRow[],
  message: ComposedMessage,
  chatIds: string[],
  accountOf: (index: number) => number,
): Promise<void> {
  if (message.type === 'template') return;
  for (const [a, account] of accounts.entries()) {
    if (!capabilitiesOf(ctx.config, account.kind).serviceWindow) continue;
    const phones = chatIds.filter((_, i) => accountOf(i) === a).map(jidUser);
    const open = await inServiceWindow(ctx.db, account.accountId, phones);
    const outside = phones.filter((p) => !open.has(p)).length;
    if (outside > 0) throw badRequest(CLOUD_TEXTS.outsideWindow(outside, account.name));
  }
}
