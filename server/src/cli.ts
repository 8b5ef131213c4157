import { parseArgs } from 'node:util';
import { BackupError, createBackup, restoreBackup } from './backup/backup.ts';
import { loadConfig } from './config.ts';
import { openDatabase } from './db/client.ts';
import { ConfigError } from './errors.ts';
import { randomToken } from './ids.ts';
import { findUserByUsername, firstAdmin } from './users/repository.ts';
import { changeCredits, createUser, setPassword } from './users/service.ts';

const HELP = `Operator commands (they use the same DATABASE_URL / DATA_DIR as the server):

  npm run cli -- user:create --username NAME --password PASS [--name "Full Name"]
                 [--role USER|ADMIN] [--credits N] [--bulk] [--multi]
      Creates a user, managed by the first admin (an ADMIN is top-level).

  npm run cli -- credits:add --username NAME --amount N [--note TEXT]
      Adds N credits; a negative amount, written --amount=-N, removes them (never below
      zero). Written to the ledger.

  npm run cli -- user:reset-password --username NAME [--password PASS]
      Sets a new password (generated and printed when --password is not given).

  npm run cli -- backup --out FILE
      Writes the embedded database (DATA_DIR) and the key file beside it into one file.
      Stop the server first. On PostgreSQL use pg_dump (see docs/operations.md, Backups).

  npm run cli -- restore --in FILE
      Replaces the embedded database with a backup; what was there is moved to
      DATA_DIR/before-restore-<time>/. Refused while a server runs on DATA_DIR.

  npm run cli -- --help
`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(HELP);
    return;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      username: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      credits: { type: 'string' },
      amount: { type: 'string' },
      note: { type: 'string' },
      bulk: { type: 'boolean' },
      multi: { type: 'boolean' },
      help: { type: 'boolean' },
      out: { type: 'string' },
      in: { type: 'string' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const need = (v: string | undefined, flag: string): string => {
    if (!v) throw new UsageError(`${command} needs --${flag}`);
    return v;
  };
  const integer = (v: string, flag: string): number => {
    if (!/^-?\d+$/.test(v)) throw new UsageError(`--${flag} must be a whole number`);
    return Number(v);
  };
  if (!['user:create', 'credits:add', 'user:reset-password', 'backup', 'restore'].includes(command)) {
    throw new UsageError(`unknown command '${command}'`);
  }

  const config = loadConfig();
  if (command === 'backup') {
    const backup = await createBackup(config, need(values.out, 'out'));
    const extra = backup.files.length ? ` and ${backup.files.join(', ')}` : '';
    console.log(
      `Backup of ${config.dataDir} (database${extra}) written to ${backup.file} (${backup.bytes} bytes).`,
    );
    return;
  }
  if (command === 'restore') {
    const restored = await restoreBackup(config, need(values.in, 'in'));
    console.log(
      `Restored the backup of ${restored.createdAt} into ${config.dataDir}.` +
        (restored.movedTo ? ` What was there is in ${restored.movedTo}.` : ''),
    );
    return;
  }
  const database = await openDatabase(config);
  const { db } = database;
  try {
    if (command === 'user:create') {
      const username = need(values.username, 'username');
      const password = need(values.password, 'password');
      if (password.length < 8) throw new UsageError('--password must be at least 8 characters');
      const role = (values.role ?? 'USER').toUpperCase();
      if (role !== 'USER' && role !== 'ADMIN') throw new UsageError('--role must be USER or ADMIN');
      const credits = values.credits ? integer(values.credits, 'credits') : 0;
      if (credits < 0) throw new UsageError('--credits cannot be negative');
      const admin = role === 'USER' ? await firstAdmin(db) : undefined;
      const user = await createUser(
        db,
        {
          username,
          password,
          name: values.name ?? username,
          role,
          credits,
          isBulkMessagingEnabled: values.bulk ?? false,
          isMultisessionSupported: values.multi ?? false,
          managedBy: admin?.id ?? null,
        },
        {
          actor: 'cli',
          details: {
            username,
            name: values.name ?? username,
            role,
            credits,
            bulk: values.bulk ?? false,
            multi: values.multi ?? false,
          },
        },
      );
      console.log(`Created ${role} '${user.username}' (id ${user.id}) with ${credits} credits.`);
    } else if (command === 'credits:add') {
      const username = need(values.username, 'username');
      const amount = integer(need(values.amount, 'amount'), 'amount');
      if (amount === 0) throw new UsageError('--amount must not be zero');
      const user = await findUserByUsername(db, username);
      if (!user) throw new UsageError(`no user '${username}'`);
      const note = values.note ?? 'Operator CLI';
      const balance = await changeCredits(
        db,
        user.id,
        amount,
        { note },
        { actor: 'cli', details: { amount, note } },
      );
      if (balance === null) throw new UsageError(`the balance (${user.credits}) is lower than ${-amount}`);
      console.log(`'${user.username}' now has ${balance} credits.`);
    } else {
      const username = need(values.username, 'username');
      const user = await findUserByUsername(db, username);
      if (!user) throw new UsageError(`no user '${username}'`);
      const password = values.password ?? randomToken(12);
      if (password.length < 8) throw new UsageError('--password must be at least 8 characters');
      await setPassword(db, user.id, password, { actor: 'cli' });
      console.log(
        values.password
          ? `Password of '${user.username}' changed.`
          : `New password of '${user.username}': ${password}`,
      );
    }
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof BackupError) {
    console.error(`Error: ${err.message}`);
  } else if (err instanceof UsageError || err instanceof ConfigError) {
    console.error(`Error: ${err.message}\nRun 'npm run cli -- --help' for the commands.`);
  } else if (err instanceof Error && /already taken/.test(err.message)) {
    console.error(`Error: ${err.message}`);
  } else if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
    console.error(`Error: ${err.message}\nRun 'npm run cli -- --help' for the commands.`);
  } else {
    console.error(err);
  }
  process.exit(1);
});
