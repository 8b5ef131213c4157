/** A page's result or error line, shown as an Alert of that colour. */
export type Banner = { color: 'green' | 'red' | 'blue' | 'yellow'; text: string };
