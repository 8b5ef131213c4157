import type { Locator, Page } from '@playwright/test';
import { expect } from '../../fixtures.ts';

/** What the QR and pairing-code dialogs say once the phone is linked. */
export const CONNECTED_TEXT = 'Successfully Connected! Your WhatsApp instance is now ready to use.';

/**
 * The dialog says connected, then closes by itself 3 s later (web QR_TIMING.closeAfterConnectMs,
 * kept to the letter): seen by moving the page's clock on 3 s, not by waiting for them. The clock
 * must have been installed (`page.clock.install()`) before the page loaded. A close delay more than
 * about a second longer, or no close, fails.
 */
export async function expectConnectedThenClosed(page: Page, dialog: Locator): Promise<void> {
  // Within 30 s: QR and link take about 3 s, more on a busy machine.
  await expect(dialog.getByText(CONNECTED_TEXT)).toBeVisible({ timeout: 30_000 });
  await page.clock.fastForward(3_000);
  await expect(dialog).toBeHidden({ timeout: 1_000 });
}
