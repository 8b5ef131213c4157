import type { AuditEntry } from '@wa/contract';

/** The audit details' field names in words (they showed as `is_bulk_messaging_enabled`). */
const FIELD_LABELS: Record<string, string> = {
  username: 'Username',
  name: 'Name',
  role: 'Role',
  credits: 'Credits',
  amount: 'Amount',
  balance: 'Balance after',
  note: 'Note',
  password: 'Password',
  disabled: 'Disabled',
  bulk: 'Bulk messaging',
  multi: 'Several accounts',
  is_bulk_messaging_enabled: 'Bulk messaging',
  is_multisession_supported: 'Several accounts',
  managedBy: 'Managed by',
  reason: 'Reason',
  keyId: 'Key id',
  prefix: 'Key starts with',
  webhookId: 'Webhook id',
  url: 'Address',
  events: 'Events',
};

/** A field name not listed above, in words: `someField` / `some_field` → 'Some field'. */
const words = (key: string) => {
  const spaced = key
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .trim();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
};

const value = (key: string, v: unknown): string => {
  if (v === null || v === undefined) return '–';
  if (typeof v === 'boolean') return v ? 'Yes' : 'No';
  // The API's flags are 0/1.
  if ((key.startsWith('is_') || key === 'bulk' || key === 'multi') && (v === 0 || v === 1))
    return v ? 'Yes' : 'No';
  if (Array.isArray(v))
    return v.map((x) => (typeof x === 'object' ? JSON.stringify(x) : String(x))).join(', ');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
};

/** The details of an audit entry in words, one 'Label: value' per field. */
export function auditDetails(e: Pick<AuditEntry, 'details'>): string {
  if (!e.details) return '';
  return Object.entries(e.details)
    .map(([k, v]) => `${FIELD_LABELS[k] ?? words(k)}: ${value(k, v)}`)
    .join(', ');
}
