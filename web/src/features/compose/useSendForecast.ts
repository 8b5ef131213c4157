import { useSessionToday } from '../instances/api/get-session-policy.ts';
import type { Audience } from './compose-form.ts';
import { sendForecast } from './send-forecast.ts';

/** The forecast of a send of `count` recipients from the chosen account (null: all may go now). */
export function useSendForecast(sessionId: string | null, count: number, audience: Audience): string | null {
  const today = useSessionToday(sessionId);
  return sendForecast(count, audience, today.data);
}
