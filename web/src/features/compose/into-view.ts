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
  if (problem && view > 0) {
    const top = el.getBoundingClientRect().top;
    const bottom = problem.getBoundingClientRect().bottom;
    if (bottom - top > view / 2) {
      problem.scrollIntoView?.({ block: bottom - top < view ? 'end' : 'center', behavior });
      return;
    }
  }
  el.scrollIntoView?.({ block: 'center', behavior });
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
