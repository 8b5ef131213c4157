/** Thrown by withTimeout when the send took longer than allowed. */
export const SEND_TIMED_OUT = Symbol('send timed out');
/** Thrown by a send's beforeRelay when the policy holds the account at the last moment: nothing was sent. */
export const HELD_AT_LAST_MOMENT = Symbol('held at the last moment');

/** The send, or SEND_TIMED_OUT thrown after `ms` (the send goes on; its late result: answeredLate). */
export function withTimeout<T>(send: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(SEND_TIMED_OUT), ms);
  });
  send.catch(() => {});
  return Promise.race([send, expiry]).finally(() => clearTimeout(timer));
}
