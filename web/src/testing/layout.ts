import { afterAll, beforeAll } from 'vitest';

/**
 * jsdom lays nothing out: every element reports a 1000×600 box while the calling file's tests
 * run (a virtualised list then draws its rows), and its own sizes again after them.
 */
export function giveBoxesASize(): void {
  const saved = ['clientHeight', 'clientWidth'].map(
    (k) => [k, Object.getOwnPropertyDescriptor(HTMLElement.prototype, k)] as const,
  );
  beforeAll(() => {
    Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 600 });
    Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 1000 });
  });
  afterAll(() => {
    for (const [k, d] of saved) if (d) Object.defineProperty(HTMLElement.prototype, k, d);
  });
}
