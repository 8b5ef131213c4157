import { hash, verify } from '@node-rs/argon2';

// argon2id is the library's default algorithm; naming its const enum breaks verbatimModuleSyntax.
export const hashPassword = (password: string): Promise<string> => hash(password);

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** A hash to verify against when the user does not exist, so both paths take the same time. */
let dummyHash: Promise<string> | undefined;
export const dummyPasswordHash = (): Promise<string> => {
  dummyHash ??= hash('not-a-real-password-just-timing');
  return dummyHash;
};
