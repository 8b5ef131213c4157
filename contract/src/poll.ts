/**
 * A poll as a job keeps it: its content is the JSON text of
 * `{ pollName, pollOptions, options: { allowMultipleAnswers } }`. One reader for
 * the server's send (which also takes the object itself) and the web's job and report views.
 */

export type Poll = { pollName: string; pollOptions: string[]; allowMultipleAnswers: boolean };

/** The stored form of a poll: the JSON a job's content holds, and the job row's `poll` column. */
export type StoredPoll = {
  pollName: string;
  pollOptions: string[];
  options: { allowMultipleAnswers: boolean };
};

/** A poll from a parsed value, or null when it has no question text; options that are not text are dropped. */
export function pollOfValue(value: unknown): Poll | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as {
    pollName?: unknown;
    pollOptions?: unknown;
    options?: { allowMultipleAnswers?: unknown };
  };
  if (typeof v.pollName !== 'string') return null;
  return {
    pollName: v.pollName,
    pollOptions: Array.isArray(v.pollOptions)
      ? v.pollOptions.filter((o): o is string => typeof o === 'string')
      : [],
    allowMultipleAnswers: v.options?.allowMultipleAnswers === true,
  };
}

/** A poll job's content read back; null when it is no poll's JSON. */
export function parsePoll(content: string): Poll | null {
  try {
    return pollOfValue(JSON.parse(content));
  } catch {
    return null;
  }
}

/** The stored form of a poll (what `parsePoll` reads back from its JSON). */
export const storedPoll = (poll: Poll): StoredPoll => ({
  pollName: poll.pollName,
  pollOptions: poll.pollOptions,
  options: { allowMultipleAnswers: poll.allowMultipleAnswers },
});

/** A poll job's content: the JSON text of its stored form, which parsePoll reads back. */
export const pollContent = (poll: StoredPoll): string => JSON.stringify(poll);
