/** The browser tab's title after a page's own name (index.html carries it before the app runs). */
export const APP_TITLE = 'WhatsApp Bulk Messaging Console';
