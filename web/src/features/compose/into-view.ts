/**
 * Focuses an element that shows feedback and brings it to the middle of the view (smoothly
 * unless the user asked for less motion), so it is read where the user is looking (issue 18).
 */
export function focusIntoView(el: HTMLElement) {
  el.focus({ preventScroll: true });
  const reduced = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
  el.scrollIntoView?.({ block: 'center', behavior: reduced ? 'auto' : 'smooth' });
}
