import { AccountPolicy } from '@wa/contract';

/** The Account settings form: numbers as typed ('' is empty), quiet hours with their own switch. */
export type PolicyForm = {
  dailyLimit: number | '';
  warmUp: boolean;
  quietHours: boolean;
  quietStart: string;
  quietEnd: string;
  timezone: string;
  /** Pauses in seconds, as the form shows them (the policy holds milliseconds). */
  delayMinS: number | '';
  delayMaxS: number | '';
  typing: boolean;
  /** Numbers the account never messaged, a day ('' is no cap). */
  newContactsPerDay: number | '';
};

/** Where a problem is shown: next to one of these fields (the policy's own paths). */
export const POLICY_FIELDS = [
  'dailyLimit',
  'warmUp',
  'quietHours',
  'quietHours.start',
  'quietHours.end',
  'timezone',
  'delayMinMs',
  'delayMaxMs',
  'typing',
  'newContactsPerDay',
] as const;
export type PolicyField = (typeof POLICY_FIELDS)[number];
/** Problems by field; `general` for one that names no field. */
export type PolicyProblems = Partial<Record<PolicyField | 'general', string>>;

/** The window a new quiet-hours switch starts with. */
const DEFAULT_QUIET = { start: '21:00', end: '09:00' };

export function formOf(policy: AccountPolicy): PolicyForm {
  return {
    dailyLimit: policy.dailyLimit ?? '',
    warmUp: policy.warmUp,
    quietHours: policy.quietHours !== null,
    quietStart: policy.quietHours?.start ?? DEFAULT_QUIET.start,
    quietEnd: policy.quietHours?.end ?? DEFAULT_QUIET.end,
    timezone: policy.timezone,
    delayMinS: policy.delayMinMs / 1000,
    delayMaxS: policy.delayMaxMs / 1000,
    typing: policy.typing,
    newContactsPerDay: policy.newContactsPerDay ?? '',
  };
}

/** The PUT body the form stands for: an empty daily limit is no limit; other blanks stay blank (and fail). */
export function bodyOf(form: PolicyForm): Record<string, unknown> {
  return {
    dailyLimit: form.dailyLimit === '' ? null : form.dailyLimit,
    warmUp: form.warmUp,
    quietHours: form.quietHours ? { start: form.quietStart, end: form.quietEnd } : null,
    timezone: form.timezone.trim(),
    delayMinMs: form.delayMinS === '' ? undefined : Math.round(form.delayMinS * 1000),
    delayMaxMs: form.delayMaxS === '' ? undefined : Math.round(form.delayMaxS * 1000),
    typing: form.typing,
    newContactsPerDay: form.newContactsPerDay === '' ? null : form.newContactsPerDay,
  };
}

/** A path of the contract's issues as a field of the form (the nearest one that has a place). */
function fieldOfPath(path: readonly PropertyKey[]): PolicyField | null {
  const joined = path.map(String).join('.');
  return (POLICY_FIELDS as readonly string[]).includes(joined) ? (joined as PolicyField) : null;
}

/**
 * The contract's checks (the server runs the same ones): the policy to send, or the first
 * problem of each field with the contract's own words.
 */
export function checkPolicy(
  form: PolicyForm,
): { policy: AccountPolicy; problems: null } | { policy: null; problems: PolicyProblems } {
  const parsed = AccountPolicy.safeParse(bodyOf(form));
  if (parsed.success) return { policy: parsed.data, problems: null };
  const problems: PolicyProblems = {};
  for (const issue of parsed.error.issues) {
    const field = fieldOfPath(issue.path) ?? 'general';
    problems[field] ??= inFormWords(field, issue.message);
  }
  return { policy: null, problems };
}

/**
 * The field a server message is about: its messages begin with the field's path
 * ('delayMinMs must not be above delayMaxMs'). Null when it names none (shown above the form).
 */
export function fieldOfServerMessage(message: string): PolicyField | null {
  const first = message.split(' ', 1)[0] ?? '';
  return (POLICY_FIELDS as readonly string[]).includes(first) ? (first as PolicyField) : null;
}

/** The contract speaks the API's names ('delayMaxMs', 'null'); the form says what it shows. */
const FORM_WORDS: Record<PolicyField, string> = {
  dailyLimit: 'Daily limit must be a whole number from 1 to 100,000 (leave it empty for no limit)',
  newContactsPerDay:
    'New contacts per day must be a whole number from 1 to 100,000 (leave it empty for no limit)',
  warmUp: 'Warm-up must be on or off',
  quietHours: 'Quiet hours need a Quiet from and a Quiet until time',
  'quietHours.start': 'Quiet from must be a time from 00:00 to 23:59',
  'quietHours.end': 'Quiet until must be a time from 00:00 to 23:59',
  timezone: 'Choose a time zone from the list, such as Asia/Kolkata',
  delayMinMs: 'Pause from must be a number of seconds from 0 to 600',
  delayMaxMs: 'Pause to must be a number of seconds from 0 to 600',
  typing: 'Typing indicator must be on or off',
};
const PAUSE_ORDER = 'Pause from must not be longer than Pause to';
const QUIET_SAME = 'Quiet from and Quiet until must differ';

/** A contract or server message about a field, in the form's words. */
export function inFormWords(field: PolicyField | 'general', message: string): string {
  if (message.includes('must not be above')) return PAUSE_ORDER;
  if (message.includes('must differ')) return QUIET_SAME;
  if (field === 'general') return message;
  return FORM_WORDS[field];
}

/** The time zones the browser knows (the list to pick from), with the policy's own first if missing. */
export function timeZones(current: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return known.includes(current) || !current ? known : [current, ...known];
}
