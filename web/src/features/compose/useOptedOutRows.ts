import { useMemo } from 'react';
import { useOptOuts } from '../contacts/api/get-opt-outs.ts';
import type { RowBits } from './row-bits.ts';

/** How an opted-out number reads in the upload's list. */
export const optedOutName = (phone: string) => `${phone} (opted out: not sent, not charged)`;

/**
 * The uploaded numbers that opted out (the server leaves them out of a send and does not charge
 * them): their names marked for the list (undefined: none opted out), and how many of the ticked
 * rows they are, so the counts and the confirmation leave them out too.
 */
export function useOptedOutRows(numbers: readonly string[], rows: RowBits) {
  const optOuts = useOptOuts().data?.optOuts;
  const marked = useMemo(() => {
    const out = new Set((optOuts ?? []).map((o) => o.phoneNumber));
    // One pass, nothing allocated per number: an upload may hold 1,000,000 of them.
    const indices: number[] = [];
    if (out.size > 0) for (let i = 0; i < numbers.length; i++) if (out.has(numbers[i]!)) indices.push(i);
    return {
      indices,
      names: indices.length > 0 ? numbers.map((n) => (out.has(n) ? optedOutName(n) : n)) : undefined,
    };
  }, [optOuts, numbers]);
  return {
    names: marked.names,
    ticked: marked.indices.filter((i) => rows.has(i)).length,
  };
}
