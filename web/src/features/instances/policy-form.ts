import { SessionPolicy } from '@wa/contract';

/** The Account settings form: numbers as typed ('' is empty), quiet hours with their own switch. */
export type PolicyForm = {
  dailyLimit: number | '';
  warmUp: boolean;
  quietHours: boolean;
  quietStart: string;
  quietEnd: string;
  timezone: string;
  delayMinMs: number | '';
  delayMaxMs: number | '';
  typing: boolean;
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
] as const;
export type PolicyField = (typeof POLICY_FIELDS)[number];
/** Problems by field; `general` for one that names no field. */
export type PolicyProblems = Partial<Record<PolicyField | 'general', string>>;

/** The window a new quiet-hours switch starts with. */
const DEFAULT_QUIET = { start: '21:00', end: '09:00' };

export function formOf(policy: SessionPolicy): PolicyForm {
  return {
    dailyLimit: policy.dailyLimit ?? '',
    warmUp: policy.warmUp,
    quietHours: policy.quietHours !== null,
    quietStart: policy.quietHours?.start ?? DEFAULT_QUIET.start,
    quietEnd: policy.quietHours?.end ?? DEFAULT_QUIET.end,
    timezone: policy.timezone,
    delayMinMs: policy.delayMinMs,
    delayMaxMs: policy.delayMaxMs,
    typing: policy.typing,
  };
}

/** The PUT body the form stands for: an empty daily limit is no limit; other blanks stay blank (and fail). */
export function bodyOf(form: PolicyForm): Record<string, unknown> {
  return {
    dailyLimit: form.dailyLimit === '' ? null : form.dailyLimit,
    warmUp: form.warmUp,
    quietHours: form.quietHours ? { start: form.quietStart, end: form.quietEnd } : null,
    timezone: form.timezone.trim(),
    delayMinMs: form.delayMinMs === '' ? undefined : form.delayMinMs,
    delayMaxMs: form.delayMaxMs === '' ? undefined : form.delayMaxMs,
    typing: form.typing,
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
): { policy: SessionPolicy; problems: null } | { policy: null; problems: PolicyProblems } {
  const parsed = SessionPolicy.safeParse(bodyOf(form));
  if (parsed.success) return { policy: parsed.data, problems: null };
  const problems: PolicyProblems = {};
  for (const issue of parsed.error.issues) {
    const field = fieldOfPath(issue.path) ?? 'general';
    problems[field] ??= issue.message;
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

/** The time zones the browser knows (the list to pick from), with the policy's own first if missing. */
export function timeZones(current: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return known.includes(current) || !current ? known : [current, ...known];
}
