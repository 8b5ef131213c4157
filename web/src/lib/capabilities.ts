import type { Session } from '@wa/contract';

/** What a page asks an account to do: the pickers offer only the accounts that can. */
export type Capability = 'groups' | 'individuals' | 'status' | 'channels' | 'templates' | 'createGroup';

/**
 * What each kind of account can do, while the sessions API names only the kind: a linked phone
 * (the WhatsApp Web protocol, real or simulated) writes to groups, Status and channels and makes
 * groups; a Cloud API number sends approved templates to people.
 */
const BY_KIND: Record<NonNullable<Session['kind']>, readonly Capability[]> = {
  baileys: ['groups', 'individuals', 'status', 'channels', 'createGroup'],
  simulator: ['groups', 'individuals', 'status', 'channels', 'createGroup'],
  cloud: ['individuals', 'templates'],
};

/** Whether `session` can do `capability`: its own `capabilities` list when the API sends one, else its kind's. */
export function can(session: Session, capability: Capability): boolean {
  const listed = (session as Session & { capabilities?: readonly string[] }).capabilities;
  if (Array.isArray(listed)) return listed.includes(capability);
  return BY_KIND[session.kind ?? 'baileys'].includes(capability);
}
