import { Metadata, parsePhoneNumberFromString } from 'libphonenumber-js/core';
import metadata from 'libphonenumber-js/metadata.min.json';

/**
 * One attempt of the phone rule: the number libphonenumber-js reads from `attempt` (`+<digits>`,
 * or national digits in the region of `defaultCallingCode`), without its `+`, or null when it is
 * no valid number.
 *
 * Most numbers are plain digits, and libphonenumber-js spends ~10 µs on each of them (options
 * copied, metadata wrapped, a regular expression compiled per call): 1,00,000 numbers of a send
 * took ~1 s. For plain digits in a numbering plan that one country uses and that validates by
 * its national pattern alone, this takes the library's own steps with its metadata and compiled
 * patterns (the calling code is the first 1-3 digits the metadata knows; the national prefix
 * is not stripped, because its pattern does not match; valid when the national pattern matches
 * the whole number). Everything else, and every case where the library would do more (a
 * national prefix, a number that starts with the calling code without `+`, plans shared by
 * several countries), goes to the library itself. The phone test compares both on many numbers.
 */
export function numberOfAttempt(attempt: string, defaultCallingCode: string): string | null {
  const fast = plainDigitsNumber(attempt, defaultCallingCode);
  return fast === undefined ? libraryNumberOfAttempt(attempt, defaultCallingCode) : fast;
}

/** The library alone: what `numberOfAttempt` answers for every attempt (the phone test compares them). */
export function libraryNumberOfAttempt(attempt: string, defaultCallingCode: string): string | null {
  const parsed = parsePhoneNumberFromString(attempt, { defaultCallingCode }, metadata);
  return parsed?.isValid() ? parsed.number.slice(1) : null;
}

type Plan = { nationalPrefix: RegExp | null; national: RegExp } | null;
/** The parts of the library's `Metadata` this reads (its typings leave them out). */
type LibraryMetadata = {
  getCountryCodesForCallingCode(callingCode: string): string[] | undefined;
  selectNumberingPlan(country: string): void;
  numberingPlan: {
    hasTypes(): boolean;
    nationalPrefixForParsing(): string | undefined;
    nationalNumberPattern(): string;
  };
};
const library = new Metadata(metadata) as unknown as LibraryMetadata;
/** Each calling code the library knows for a country (its `hasCallingCode`), with its plan. */
const plans = new Map<string, Plan>(
  Object.keys(metadata.country_calling_codes)
    .filter((code) => library.getCountryCodesForCallingCode(code) !== undefined)
    .map((code) => [code, planOf(code)]),
);
const DIGITS = /^[0-9]{6,17}$/;

/** A calling code's plan when the fast path may read it: one country, no type patterns. */
function planOf(callingCode: string): Plan {
  const countries = library.getCountryCodesForCallingCode(callingCode);
  if (countries?.length !== 1) return null;
  library.selectNumberingPlan(countries[0]!);
  const numbering = library.numberingPlan;
  if (numbering.hasTypes()) return null;
  const prefix = numbering.nationalPrefixForParsing();
  return {
    nationalPrefix: prefix ? new RegExp(`^(?:${prefix})`) : null,
    national: new RegExp(`^(?:${numbering.nationalNumberPattern()})$`),
  };
}

/** The fast path's answer, or undefined when the library must decide. */
export function plainDigitsNumber(attempt: string, defaultCallingCode: string): string | null | undefined {
  const international = attempt.charCodeAt(0) === 43; // '+'
  const digits = international ? attempt.slice(1) : attempt;
  if (!DIGITS.test(digits) || digits.charCodeAt(0) === 48) return undefined; // '0'
  let callingCode: string | undefined;
  if (international) {
    for (let i = 1; i <= 3 && callingCode === undefined; i++)
      if (plans.has(digits.slice(0, i))) callingCode = digits.slice(0, i);
  } else if (plans.has(defaultCallingCode) && !digits.startsWith(defaultCallingCode)) {
    callingCode = defaultCallingCode;
  }
  if (callingCode === undefined) return undefined;
  const plan = plans.get(callingCode);
  const national = international ? digits.slice(callingCode.length) : digits;
  if (!plan || national.length < 2 || plan.nationalPrefix?.test(national)) return undefined;
  return plan.national.test(national) ? callingCode + national : null;
}
