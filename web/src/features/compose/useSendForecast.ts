import { dayText, lastDay, sendPlan } from '../../lib/send-plan.ts';
import { useAccountToday } from '../instances/api/get-account-policy.ts';
import type { Audience } from './compose-form.ts';
import { sendForecast } from './send-forecast.ts';

/**
 * The forecast of a send of `count` recipients from the chosen account (null: all may go now),
 * with the day the last message is expected to go when the account's caps spread it over days.
 */
export function useSendForecast(accountId: string | null, count: number, audience: Audience): string | null {
  const today = useAccountToday(accountId);
  const text = sendForecast(count, audience, today.data);
  const last = lastDay(sendPlan(count, audience, today.data));
  return text && last ? `${text}; the last expected on ${dayText(last)}` : text;
}
