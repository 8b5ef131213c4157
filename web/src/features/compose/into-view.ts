/**
 * Focuses an element that shows feedback and brings it to the middle of the view (smoothly
 * unless the user asked for less motion), so it is read where the user is looking.
 * A control whose problem is written further down (the poll's options, with the problem under
 * the last of up to 12) is brought into view together with that problem: the problem's text at
 * the bottom of the view when both fit, the problem itself in the middle when they do not.
 */
export function focusIntoView(el: HTMLElement) {
  el.focus({ preventScroll: true });
  const reduced = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
  const behavior: ScrollBehavior = reduced ? 'auto' : 'smooth';
  const problem = problemOf(el);
  const view = window.innerHeight;
  let target = el;
  let block: ScrollLogicalPosition = 'center';
  if (problem && view > 0) {
    const top = el.getBoundingClientRect().top;
    const bottom = problem.getBoundingClientRect().bottom;
    if (bottom - top > view / 2) {
      target = problem;
      block = bottom - top < view ? 'end' : 'center';
    }
  }
  target.scrollIntoView?.({ block, behavior });
  // A smooth scroll that something else interrupted (a re-render that moves the page, a busy
  // browser) is finished at once a second later.
  if (behavior === 'smooth')
    setTimeout(() => {
      if (target.isConnected && !inView(target)) target.scrollIntoView?.({ block, behavior: 'auto' });
    }, SMOOTH_SCROLL_MS);
}

/** How long a smooth scroll is given before it is finished at once. */
const SMOOTH_SCROLL_MS = 1000;

/** Whether any of the element is inside the window. */
function inView(el: HTMLElement): boolean {
  const r = el.getBoundingClientRect();
  return r.bottom > 0 && r.top < window.innerHeight && r.right > 0 && r.left < window.innerWidth;
}

/** The alert that describes the control (its `aria-describedby`), if it is shown. */
function problemOf(el: HTMLElement): HTMLElement | null {
  const ids = el.getAttribute('aria-describedby')?.split(/\s+/) ?? [];
  for (const id of ids.reverse()) {
    const found = id ? document.getElementById(id) : null;
    if (found?.getAttribute('role') === 'alert') return found;
  }
  return null;
}
