/**
 * The user's choice to skip the send confirmation for small sends, kept in this browser
 * (localStorage: it outlives the tab, unlike the spec's sessionStorage keys, which are the
 * sign-in's). Sends of fewer recipients than the stored number go without asking; 0 (the
 * default): always ask.
 */
const KEY = 'wa.confirmSendsFrom';

export function confirmSendsFrom(): number {
  try {
    const n = Number(window.localStorage.getItem(KEY));
    return Number.isInteger(n) && n > 0 ? n : 0;
  } catch {
    return 0;
  }
}

export function setConfirmSendsFrom(n: number): void {
  try {
    window.localStorage.setItem(KEY, String(Math.max(0, Math.floor(n))));
  } catch {
    // Storage refused (private mode): the dialog keeps asking.
  }
}

export const needsConfirmation = (count: number): boolean => count >= confirmSendsFrom();
