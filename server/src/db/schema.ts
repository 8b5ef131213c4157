import {
  type AccountKind,
  ADDRESS_KINDS,
  FOLLOW_UP_STATES,
  type StoredPoll,
  type StoredTemplate,
} from '@wa/contract';
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  customType,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    username: text('username').notNull(),
    name: text('name').notNull(),
    passwordHash: text('password_hash').notNull(),
    role: text('role', { enum: ['ADMIN', 'USER'] }).notNull(),
    /** The ADMIN that manages this user (null for a top-level admin). */
    managedBy: text('managed_by'),
    isBulkMessagingEnabled: boolean('is_bulk_messaging_enabled').notNull().default(false),
    isMultisessionSupported: boolean('is_multisession_supported').notNull().default(false),
    /** bigint: a 32-bit balance overflowed at 2,147,483,647 (grants stop at MAX_BALANCE instead). */
    credits: bigint('credits', { mode: 'number' }).notNull().default(0),
    disabled: boolean('disabled').notNull().default(false),
    /**
     * Base32 TOTP secret (encrypted like the WhatsApp keys when there is a key, db/secrets.ts):
     * set while two-factor sign-in is being set up, kept once it is on.
     */
    totpSecret: text('totp_secret'),
    /** The 30-second step of the last code used: a code of this step or an earlier one is refused (replay). */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
    /** When two-factor sign-in was turned on; null: off (a secret without it is a set-up in progress). */
    totpEnabledAt: ts('totp_enabled_at'),
    /** 'Send one-to-one only to contacts with consent' (set by the managing admin). */
    consentRequired: boolean('consent_required').notNull().default(false),
    /** Answer an opt-out once, in the language of the word the person wrote. */
    optOutConfirm: boolean('opt_out_confirm').notNull().default(false),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('users_username_lower_idx').on(sql`lower(${t.username})`),
    index('users_managed_by_idx').on(t.managedBy),
    check('users_credits_non_negative', sql`${t.credits} >= 0`),
  ],
);

export const authTokens = pgTable(
  'auth_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: ts('created_at').notNull().defaultNow(),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
  },
  (t) => [index('auth_tokens_user_idx').on(t.userId)],
);

/** One-time recovery codes of two-factor sign-in, hashed; a used code is deleted. */
export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.codeHash] })],
);

/**
 * Failed sign-ins (wrong password or code), kept 15 minutes: counted per account
 * (`user:<lower name>`) and per client address (`ip:<address>`), in the database so that
 * every process sees the same count.
 */
/**
 * Requests per user and kind in the current window (sends, send estimates): one row per key,
 * counted by every node against one database, so a limit holds across routes and processes.
 */
export const rateCounters = pgTable('rate_counters', {
  key: text('key').primaryKey(),
  windowStart: ts('window_start').notNull(),
  count: integer('count').notNull(),
});

export const loginFailures = pgTable(
  'login_failures',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    key: text('key').notNull(),
    failedAt: ts('failed_at').notNull().defaultNow(),
  },
  (t) => [
    index('login_failures_key_idx').on(t.key, t.failedAt),
    index('login_failures_at_idx').on(t.failedAt),
  ],
);

export const passwordResetRequests = pgTable(
  'password_reset_requests',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    requestedAt: ts('requested_at').notNull().defaultNow(),
    handledAt: ts('handled_at'),
  },
  (t) => [index('password_reset_user_idx').on(t.userId)],
);

export const creditLedger = pgTable(
  'credit_ledger',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    delta: bigint('delta', { mode: 'number' }).notNull(),
    reason: text('reason', { enum: ['grant', 'adjust', 'send', 'refund', 'retry'] }).notNull(),
    /** The job this change belongs to; kept after the job is deleted. */
    jobId: text('job_id'),
    actorId: text('actor_id'),
    note: text('note'),
    balanceAfter: bigint('balance_after', { mode: 'number' }).notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('credit_ledger_user_idx').on(t.userId, t.id), index('credit_ledger_job_idx').on(t.jobId)],
);

/** A text waiting in a simulated account's inbox (POST /api/simulator/sessions/:id/inbound). */
export type SimulatorInboxItem = {
  from: string;
  text: string;
  senderPn?: string;
  media?: { type: string; mime: string; data: string; fileName?: string };
};

export const accounts = pgTable(
  'wa_sessions',
  {
    id: text('id').primaryKey(),
    /** `<digits of the phone>_<random suffix>`, the id the API and the page use. */
    accountId: text('session_id').notNull().unique(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    phoneNumber: text('phone_number').notNull(),
    name: text('session_name').notNull(),
    status: text('status', { enum: ['CONNECTED', 'DISCONNECTED', 'PENDING'] })
      .notNull()
      .default('PENDING'),
    /** Why the account is not usable, in words; also set while WhatsApp's quota pauses its queue. */
    statusReason: text('status_reason'),
    /**
     * The account's proxy: JSON { scheme, host, port, username?, password? } encrypted
     * with the secret key, bound to this account (db/secrets.ts accountProxyContext); null: direct.
     */
    proxy: text('proxy'),
    /**
     * True while WhatsApp restricts the account's new one-to-one chats (error 463, the CAPPED
     * new-chat quota): its one-to-one sends by phone wait, group sends go on (docs/decisions.md, Sending pace).
     */
    sendPaused: boolean('send_paused').notNull().default(false),
    /** When that restriction ends, as WhatsApp gave it; null when it gave none (then only Resume sending lifts it). */
    sendPausedUntil: ts('send_paused_until'),
    /**
     * Errors 463 with no end given, in a row (a day without one starts again), and the latest's
     * time: new chats are tried again after a pause that doubles with each,
     * counted here so that another node, or this one after a restart, goes on growing it.
     */
    restrictionSteps: integer('restriction_steps').notNull().default(0),
    restrictionStepAt: ts('restriction_step_at'),
    /** 'active': a node should drive it; 'stopped': nobody connects it (logged out, banned, terminated). */
    desiredState: text('desired_state', { enum: ['active', 'stopped'] })
      .notNull()
      .default('active'),
    ownJid: text('own_jid'),
    ownLid: text('own_lid'),
    qr: text('qr'),
    qrUpdatedAt: ts('qr_updated_at'),
    /**
     * When the API first served the current QR cycle's image or pairing code; the simulator links
     * a set time after it.
     */
    qrServedAt: ts('qr_served_at'),
    /** Set by the API: the user asked to link by phone number (the driving node requests a code). */
    pairingRequestedAt: ts('pairing_requested_at'),
    /** The pairing code the phone is to enter (8 characters), stored like the QR so that any node answers. */
    pairingCode: text('pairing_code'),
    pairingCodeAt: ts('pairing_code_at'),
    /** When the code stops working (its socket's QR refs run out). */
    pairingCodeExpiresAt: ts('pairing_code_expires_at'),
    /**
     * An order from the API to whichever node drives the account (restart, or the simulator's
     * link / disconnect / logout), taken and cleared by that node; `command_at` tells orders apart.
     */
    /** `reconnect`: a new socket even when connected (its proxy changed). */
    command: text('command', { enum: ['restart', 'terminate', 'link', 'disconnect', 'logout', 'reconnect'] }),
    commandAt: ts('command_at'),
    /**
     * Texts the simulator's inbound route delivers to the account, oldest first, taken (and
     * cleared) by the node that drives the account, whose transport reports them as received.
     */
    simulatorInbox: jsonb('simulator_inbox').$type<SimulatorInboxItem[]>(),
    hasCredentials: boolean('has_credentials').notNull().default(false),
    ownerNode: text('owner_node'),
    leaseExpiresAt: ts('lease_expires_at'),
    /** Set by the API to ask the owning node for a fresh group fetch. */
    groupsRefreshRequestedAt: ts('groups_refresh_requested_at'),
    groupsFetchedAt: ts('groups_fetched_at'),
    /** Set by the API when it queued a channel order (wa_channel_orders) for the owning node. */
    channelOrderAt: ts('channel_order_at'),
    connectedAt: ts('connected_at'),
    /** When `status` last changed: a job spread over accounts moves its recipients off one down for long. */
    statusChangedAt: ts('status_changed_at').notNull().defaultNow(),
    /** When the account was first linked (cleared when the phone unlinks it): the warm-up counts days from it. */
    linkedAt: ts('linked_at'),
    /**
     * 'linked': a phone linked as a device (Baileys, or the simulator under WA_PROVIDER=simulator);
     * 'cloud': a number on Meta's WhatsApp Cloud API (its credentials in cloud_accounts).
     */
    kind: text('kind', { enum: ['linked', 'cloud'] as const satisfies readonly AccountKind[] })
      .notNull()
      .default('linked'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('wa_sessions_user_idx').on(t.userId), index('wa_sessions_owner_idx').on(t.ownerNode)],
);

/**
 * An account's sending policy (docs/decisions.md, Sending policy per account). No row: the defaults.
 * A null `warm_up` or delay follows the server's settings. `held_*` is what the account's loop
 * last decided: why its recipients wait and until when (shown on its jobs).
 */
export const accountPolicies = pgTable('session_policies', {
  accountId: text('session_id')
    .primaryKey()
    .references(() => accounts.accountId, { onDelete: 'cascade' }),
  dailyLimit: integer('daily_limit'),
  warmUp: boolean('warm_up'),
  quietStart: text('quiet_start'),
  quietEnd: text('quiet_end'),
  timezone: text('timezone').notNull().default('Asia/Kolkata'),
  delayMinMs: integer('delay_min_ms'),
  delayMaxMs: integer('delay_max_ms'),
  typing: boolean('typing').notNull().default(true),
  /**
   * Numbers the account has never messaged, per local day: null follows the default
   * (on while warm-up is on), 0 is no cap chosen by the user.
   */
  newContactsPerDay: integer('new_contacts_per_day'),
  heldReason: text('held_reason'),
  heldUntil: ts('held_until'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

export const waAuthState = pgTable(
  'wa_auth_state',
  {
    accountId: text('session_id')
      .notNull()
      .references(() => accounts.accountId, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    /** JSON text written with Baileys' BufferJSON replacer. */
    value: text('value').notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.key] })],
);

/**
 * One-to-one chats whose contact gave the account its privacy token (rc14's `tctoken` keys,
 * Utils/tc-token-utils.js), until the token expires: WhatsApp takes messages to these chats from
 * an account restricted from starting new chats (463), so such a restriction does not hold them.
 */
export const waPrivacyTokens = pgTable(
  'wa_privacy_tokens',
  {
    accountId: text('session_id')
      .notNull()
      .references(() => accounts.accountId, { onDelete: 'cascade' }),
    /** The contact's phone-number chat JID. */
    chatId: text('chat_id').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.chatId] })],
);

export type StoredParticipant = {
  id: string;
  phoneNumber: string | null;
  lid: string | null;
  admin: 'admin' | 'superadmin' | null;
};
export type StoredLastMessage = { sender: string; timestamp: number; body: string | null };

export const waGroups = pgTable(
  'wa_groups',
  {
    accountId: text('session_id')
      .notNull()
      .references(() => accounts.accountId, { onDelete: 'cascade' }),
    groupId: text('group_id').notNull(),
    subject: text('subject').notNull(),
    owner: text('owner'),
    createdAt: ts('created_at'),
    participants: jsonb('participants').$type<StoredParticipant[]>().notNull(),
    /** Whether the linked account is an admin of the group. */
    isAdmin: boolean('is_admin').notNull().default(false),
    /** Only admins may send (announcement group). */
    announce: boolean('announce').notNull().default(false),
    /** 'pn' or 'lid': how the group addresses its members; null when WhatsApp did not say (Baileys then asks). */
    addressingMode: text('addressing_mode').$type<'pn' | 'lid'>(),
    /** Disappearing messages in seconds; null when off or unknown. */
    ephemeralDuration: integer('ephemeral_duration'),
    inviteCode: text('invite_code'),
    inviteCodeFetchedAt: ts('invite_code_fetched_at'),
    lastMessage: jsonb('last_message').$type<StoredLastMessage | null>(),
    fetchedAt: ts('fetched_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.groupId] })],
);

/**
 * Channels (WhatsApp newsletters) the account owns or administers. rc14 has no call
 * that lists them, so this is what the account learned: channels created or added here, re-read
 * on a refresh (newsletterMetadata, with the follower count).
 */
export const waChannels = pgTable(
  'wa_channels',
  {
    accountId: text('session_id')
      .notNull()
      .references(() => accounts.accountId, { onDelete: 'cascade' }),
    /** `<digits>@newsletter`. */
    channelId: text('channel_id').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    followers: integer('followers').notNull().default(0),
    role: text('role', { enum: ['OWNER', 'ADMIN'] }).notNull(),
    invite: text('invite'),
    fetchedAt: ts('fetched_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.channelId] })],
);

/**
 * What the API asks the node that drives the account to do with channels (create, add by link,
 * refresh) or groups (make one with its first members); that node does it through WhatsApp and
 * writes the outcome here, where the API reads it.
 */
export const waChannelOrders = pgTable(
  'wa_channel_orders',
  {
    id: text('id').primaryKey(),
    accountId: text('session_id')
      .notNull()
      .references(() => accounts.accountId, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['create', 'add', 'refresh', 'group'] }).notNull(),
    /** A channel's or a new group's name. */
    name: text('name'),
    /** A new group's first members (phone-number JIDs). */
    members: text('members').array(),
    description: text('description'),
    invite: text('invite'),
    requestedAt: ts('requested_at').notNull().defaultNow(),
    /** Taken by the driving node: from then on it is carried out even when the API stopped waiting. */
    takenAt: ts('taken_at'),
    doneAt: ts('done_at'),
    /** In words, for the user, when the order failed. */
    error: text('error'),
    /** The channel created or added; for a new group, the group's id. */
    channelId: text('channel_id'),
  },
  (t) => [index('wa_channel_orders_pending_idx').on(t.accountId).where(sql`${t.doneAt} IS NULL`)],
);

/** Messages this product sent, kept so that the transport can answer retry requests and decrypt poll votes. */
export const waSentMessages = pgTable(
  'wa_sent_messages',
  {
    accountId: text('session_id')
      .notNull()
      .references(() => accounts.accountId, { onDelete: 'cascade' }),
    messageId: text('message_id').notNull(),
    chatId: text('chat_id').notNull(),
    /** The proto message as JSON (BufferJSON). */
    message: text('message').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.messageId] }),
    // The hourly prune of rows older than SENT_MESSAGES_KEEP_MS.
    index('wa_sent_messages_created_at_idx').on(t.createdAt),
  ],
);

/**
 * What WhatsApp answered when asked whether a number is on it: shared by every
 * node and account, so that a job's numbers are asked in batches once, not one query per send.
 * `jid` null: not on WhatsApp. Trusted until `expires_at` (a day for yes, an hour for no).
 */
export const waNumberLookups = pgTable('wa_number_lookups', {
  phone: text('phone').primaryKey(),
  jid: text('jid'),
  checkedAt: ts('checked_at').notNull().defaultNow(),
  expiresAt: ts('expires_at').notNull(),
});

/**
 * Texts written to an account from a LID that no stored mapping turns into a number:
 * kept until a send to a number resolves that LID (or rc14 learns the mapping), then
 * reported as the number's own, so that a STOP is not lost.
 */
export const waLidTexts = pgTable(
  'wa_lid_texts',
  {
    accountId: text('session_id')
      .notNull()
      .references(() => accounts.accountId, { onDelete: 'cascade' }),
    messageId: text('message_id').notNull(),
    /** The sender's LID user (digits before `@lid`). */
    lid: text('lid').notNull(),
    text: text('text').notNull(),
    receivedAt: ts('received_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.messageId] }), index('wa_lid_texts_lid_idx').on(t.lid)],
);

export const media = pgTable('media', {
  /** sha256 of the bytes, hex: the same file is stored once. */
  id: text('id').primaryKey(),
  mime: text('mime').notNull(),
  size: integer('size').notNull(),
  bytes: bytea('bytes').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export type { StoredPoll, StoredTemplate };

export const messageJobs = pgTable(
  'message_jobs',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The account's public id; kept as text so the job outlives a terminated account. */
    accountId: text('session_id').notNull(),
    /**
     * Every account sharing the job, `session_id` first, when it is spread over several (null:
     * only `session_id`). Each recipient's own `session_id` says which account sends it.
     */
    accountIds: text('session_ids').array(),
    audience: text('audience', { enum: ['groups', 'individuals'] }).notNull(),
    messageType: text('message_type', { enum: ['text', 'media', 'poll', 'template', 'status'] }).notNull(),
    /** A text status's background colour and font; null for everything else. */
    statusStyle: jsonb('status_style').$type<{ backgroundColor: string; font: number } | null>(),
    /** Text, caption, for polls the JSON text of the poll, for Cloud API templates the JSON of StoredTemplate. */
    content: text('content').notNull(),
    poll: jsonb('poll').$type<StoredPoll | null>(),
    /**
     * A poll job's message secret (32 random bytes, rc14 Utils/messages.js generateWAMessageContent
     * `poll.messageSecret`): every recipient's poll carries it, and their votes are decrypted with
     * it. Kept with the job, not with each sent copy (those are pruned): a vote may come weeks
     * later. Never shown nor exported. Null for every other job.
     */
    pollSecret: bytea('poll_secret'),
    mediaId: text('media_id').references(() => media.id),
    mediaMime: text('media_mime'),
    fileName: text('file_name'),
    isScheduled: boolean('is_scheduled').notNull().default(false),
    scheduledAt: ts('scheduled_at'),
    status: text('status', {
      enum: ['pending', 'processing', 'scheduled', 'paused', 'completed', 'failed'],
    }).notNull(),
    /** Why the job is paused ('Paused: 12 of the last 20 messages failed'); null when the user paused it or it runs. */
    statusReason: text('status_reason'),
    /**
     * The job's last 20 send outcomes as bits, newest lowest (1 = failed): the auto-pause reads
     * them without scanning recipients.
     */
    recentFailures: integer('recent_failures').notNull().default(0),
    total: integer('total').notNull(),
    sentCount: integer('sent_count').notNull().default(0),
    failedCount: integer('failed_count').notNull().default(0),
    cancelledCount: integer('cancelled_count').notNull().default(0),
    /** Recipients with a delivery (or read) receipt, and with a read receipt: kept here so the dashboard sums jobs, not recipients. */
    deliveredCount: integer('delivered_count').notNull().default(0),
    readCount: integer('read_count').notNull().default(0),
    /** Recipients who wrote back within 7 days of their send, and those with no delivery receipt within UNDELIVERED_AFTER_MS. */
    repliedCount: integer('replied_count').notNull().default(0),
    undeliveredCount: integer('undelivered_count').notNull().default(0),
    /** Since when due recipients have been held because the account cannot send (down or paused); null while it can. */
    waitingSince: ts('waiting_since'),
    createdAt: ts('created_at').notNull().defaultNow(),
    startedAt: ts('started_at'),
    finishedAt: ts('finished_at'),
    /** The repeating series this job is an occurrence of (null for a one-off job). */
    seriesId: text('series_id'),
    /**
     * An occurrence of a series that has not started: nothing reserved, no recipients yet. When
     * its time comes it is reserved (or recorded failed when the balance is short).
     */
    awaitingStart: boolean('awaiting_start').notNull().default(false),
  },
  (t) => [
    // The occurrences due to start, for the sweep (few rows: one per live series).
    index('message_jobs_awaiting_start_idx').on(t.scheduledAt).where(sql`${t.awaitingStart}`),
    index('message_jobs_series_idx').on(t.seriesId).where(sql`${t.seriesId} IS NOT NULL`),
    // Newest first, as every list pages them (keyset on created_at, id).
    index('message_jobs_user_created_idx').on(t.userId, t.createdAt.desc(), t.id.desc()),
    index('message_jobs_session_status_idx').on(t.accountId, t.status),
    // The jobs waiting for an account, for the sweep's waiting clocks (few rows; without it the
    // sweep read every job of every user each second).
    index('message_jobs_waiting_idx').on(t.waitingSince).where(sql`${t.waitingSince} IS NOT NULL`),
    // The live jobs spread over accounts, for the failover sweep (few rows).
    index('message_jobs_spread_live_idx')
      .on(t.id)
      .where(sql`${t.accountIds} IS NOT NULL AND ${t.status} IN ('pending', 'processing', 'scheduled')`),
    // A tab of the list (Failed, Completed, …) pages in order without sorting its whole status.
    index('message_jobs_user_status_created_idx').on(t.userId, t.status, t.createdAt.desc(), t.id.desc()),
    // The jobs still moving: the list's summary aggregates these live, and finished ones from job_stats.
    index('message_jobs_user_live_idx')
      .on(t.userId, t.createdAt)
      .where(sql`${t.status} NOT IN ('completed', 'failed')`),
  ],
);

/**
 * A repeating send (`repeat: { every, until }`): what each occurrence sends, to whom (rendered
 * at acceptance), and how often. Each occurrence is its own message_jobs row; the next one
 * exists, awaiting its start, while the series lives.
 */
export const messageJobSeries = pgTable('message_job_series', {
  id: text('id').primaryKey(),
  userId: text('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  accountId: text('session_id').notNull(),
  audience: text('audience', { enum: ['groups', 'individuals'] }).notNull(),
  every: text('every', { enum: ['day', 'week', 'month'] }).notNull(),
  /** No occurrence starts after this time (null: until cancelled). */
  until: ts('until'),
  /** The first occurrence's time: the n-th is n days, weeks or months after it (UTC clock). */
  anchorAt: ts('anchor_at').notNull(),
  chatIds: text('chat_ids').array().notNull(),
  chatNames: text('chat_names').array().notNull(),
  /** Each recipient's own text when personalised (else null). */
  contents: text('contents').array(),
  /** Occurrences started so far. */
  started: integer('started').notNull().default(0),
  /** Since when no occurrence will start any more: the series was cancelled or passed `until`. */
  endedAt: ts('ended_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
});

/**
 * Finished (completed or failed) jobs' figures by user, UTC day of creation and status, so that a
 * list's summary does not scan a user's whole history. A trigger on message_jobs (migration
 * 0012) appends a +1 row when a job becomes finished and a -1 row when it stops being finished,
 * changes its counters, or is deleted: appends only, so concurrent writers never wait on each
 * other. `compactJobStats` folds each bucket's rows into one.
 */
export const jobStats = pgTable(
  'job_stats',
  {
    userId: text('user_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    status: text('status').notNull(),
    jobs: integer('jobs').notNull(),
    recipients: bigint('recipients', { mode: 'number' }).notNull(),
    sent: bigint('sent', { mode: 'number' }).notNull(),
    failed: bigint('failed', { mode: 'number' }).notNull(),
  },
  (t) => [index('job_stats_user_day_idx').on(t.userId, t.day)],
);

export const messageJobRecipients = pgTable(
  'message_job_recipients',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    /**
     * No foreign key: its per-row check was a third of the time of a 100k-recipient insert. The
     * trigger `message_jobs_delete_recipients` (migration 0003) deletes a job's recipients with it.
     */
    jobId: text('job_id').notNull(),
    accountId: text('session_id').notNull(),
    chatId: text('chat_id').notNull(),
    chatName: text('chat_name'),
    /**
     * The text this recipient gets when the job's text is personalised (its variables and
     * spintax rendered at acceptance: the text, the caption, or the poll's question); null when
     * everyone gets the job's own text.
     */
    content: text('content'),
    status: text('status', { enum: ['queued', 'sending', 'sent', 'failed', 'cancelled'] })
      .notNull()
      .default('queued'),
    /** When it may be sent (the job's schedule time, or its acceptance). */
    dueAt: ts('due_at').notNull().defaultNow(),
    attempts: integer('attempts').notNull().default(0),
    leaseOwner: text('lease_owner'),
    leaseExpiresAt: ts('lease_expires_at'),
    error: text('error'),
    messageId: text('message_id'),
    /**
     * The chat the message went to when WhatsApp answered another JID for the number (Brazil's
     * 9th digit, Mexico's 52 1, Argentina's 54 9); null when it went to `chat_id` itself.
     */
    sentTo: text('sent_to'),
    sentAt: ts('sent_at'),
    deliveredAt: ts('delivered_at'),
    readAt: ts('read_at'),
    /** The first one-to-one message from the recipient within 7 days of the send, and its text. */
    repliedAt: ts('replied_at'),
    replyText: text('reply_text'),
    /** Set when no delivery receipt came within UNDELIVERED_AFTER_MS of the send, with the known cause if any. */
    undeliveredAt: ts('undelivered_at'),
    undeliveredReason: text('undelivered_reason'),
    /** Cloud API: Meta's `pricing.category` of the message (marketing, utility, …), from its first status that has one. */
    pricingCategory: text('pricing_category'),
    /** Cloud API: what Meta charges for it in ten-thousandths of a rupee (₹0.8631 = 8631), set when it is delivered and billable. */
    costUnits: integer('cost_units'),
    /** Cloud API: how many times Meta's per-user marketing limit (131049) sent it back to wait a day. */
    cloudRetries: integer('cloud_retries').notNull().default(0),
    /**
     * The credits reserved for this recipient: the price of its account's kind when it was
     * accepted (or retried). A refund gives back exactly this, whatever the price is by then.
     */
    price: integer('price').notNull().default(1),
    /** When it failed (null unless failed): the account-health window's failures. */
    failedAt: ts('failed_at'),
    /**
     * In no index, key or predicate: a receipt's update (delivered_at, read_at, updated_at) then
     * changes no indexed column and is a HOT update, in place.
     */
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('recipients_job_idx').on(t.jobId, t.id),
    index('recipients_due_idx').on(t.accountId, t.dueAt, t.id).where(sql`${t.status} = 'queued'`),
    index('recipients_sending_idx').on(t.leaseExpiresAt).where(sql`${t.status} = 'sending'`),
    // An account's messages of its local day, counted against its daily limit and warm-up.
    index('recipients_session_sent_idx').on(t.accountId, t.sentAt).where(sql`${t.status} = 'sent'`),
    // Partial: rows are inserted without a message id, so the bulk insert does not maintain this index.
    index('recipients_message_idx').on(t.accountId, t.messageId).where(sql`${t.messageId} IS NOT NULL`),
    // An incoming message finds the account's latest send to that number (replies), and
    // whether the account has messaged a number before (newContactsPerDay, account health).
    index('recipients_session_chat_sent_idx')
      .on(t.accountId, t.chatId, t.sentAt)
      .where(sql`${t.status} = 'sent'`),
    // The account-health window's failures, undelivered messages and replies (small partial indexes).
    index('recipients_session_failed_idx').on(t.accountId, t.failedAt).where(sql`${t.status} = 'failed'`),
    index('recipients_session_undelivered_idx')
      .on(t.accountId, t.undeliveredAt)
      .where(sql`${t.undeliveredAt} IS NOT NULL`),
    index('recipients_session_replied_idx')
      .on(t.accountId, t.repliedAt)
      .where(sql`${t.repliedAt} IS NOT NULL`),
  ],
);

/**
 * How far the undelivered sweep (messaging/engine/delivery.ts) has read each account's sent
 * messages: those sent at or before `swept_to` were looked at once, past the deadline, and made
 * undelivered if no receipt had come. The sweep reads on from here through the recipients' own
 * (session_id, sent_at) index, so recording a send writes nothing for it (a row per
 * send in a table of its own cost a fifth of the dispatch rate). A send recorded with a time
 * before the mark (sent after all) moves the mark back. No foreign key: the sends of a deleted
 * account still become undelivered.
 */
export const undeliveredSweeps = pgTable('undelivered_sweeps', {
  accountId: text('session_id').primaryKey(),
  sweptTo: ts('swept_to').notNull(),
});

/**
 * What an account's health reads beside its recipients: disconnects with their
 * reason, WhatsApp's restrictions (463, reach-out timelock, CAPPED quota) and 429s, and the
 * breaker's own pauses. Kept a week (the health window is a day).
 */
export const accountEvents = pgTable(
  'account_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    accountId: text('session_id')
      .notNull()
      .references(() => accounts.accountId, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['disconnected', 'restricted', 'rate-limited', 'protect-paused'] }).notNull(),
    detail: text('detail'),
    at: ts('at').notNull().defaultNow(),
  },
  (t) => [index('account_events_session_idx').on(t.accountId, t.at)],
);

/**
 * An account's health as last evaluated by the node that drives it (accounts/health): the score
 * and its signals for the API and Prometheus, the breaker's state, and the warm-up days that did
 * not count because the account was not healthy when its local day turned.
 */
export const accountHealth = pgTable('account_health', {
  accountId: text('session_id')
    .primaryKey()
    .references(() => accounts.accountId, { onDelete: 'cascade' }),
  score: integer('score').notNull(),
  state: text('state', { enum: ['good', 'watch', 'paused'] }).notNull(),
  /** The main reason for a score below good, in words (null when good). */
  reason: text('reason'),
  signals: jsonb('signals').$type<Record<string, number>>().notNull(),
  /** The window's start: a day before the evaluation (lifting the breaker's pause keeps it). */
  windowFrom: ts('window_from').notNull(),
  /** Set while the breaker's own pause holds (cleared once lifted). */
  protectPausedAt: ts('protect_paused_at'),
  warmUpHeldDays: integer('warm_up_held_days').notNull().default(0),
  /** The account's local date (YYYY-MM-DD) whose warm-up step was last decided. */
  warmUpDayChecked: text('warm_up_day_checked'),
  evaluatedAt: ts('evaluated_at').notNull().defaultNow(),
});

/** Keys for the user's own API (`Authorization: Bearer wak_…`): only a hash is kept, the key is shown once. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The key's first characters, to tell keys apart in the list. */
    prefix: text('prefix').notNull(),
    /** sha256 of the whole key, hex. */
    keyHash: text('key_hash').notNull().unique(),
    createdAt: ts('created_at').notNull().defaultNow(),
    lastUsedAt: ts('last_used_at'),
    revokedAt: ts('revoked_at'),
    /** Why it stopped working: revoked by hand, or ended by a new password, two-factor sign-in, a disabled user. */
    revokedReason: text('revoked_reason', { enum: ['revoked', 'password', 'two_factor', 'disabled'] }),
  },
  (t) => [index('api_keys_user_idx').on(t.userId)],
);

export const webhooks = pgTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    /** The HMAC key deliveries are signed with; encrypted when there is a key (db/secrets.ts). */
    secret: text('secret').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('webhooks_user_idx').on(t.userId)],
);

/**
 * One event owed to one webhook (ARCHITECTURE principle 7): claimed with SKIP LOCKED by moving
 * `next_attempt_at` past the call's timeout, so a process that dies mid-call leaves it due again.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    webhookId: text('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    event: text('event', {
      enum: ['job.finished', 'message.status', 'session.status', 'optout', 'message.received'],
    }).notNull(),
    data: jsonb('data').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
    lastError: text('last_error'),
    createdAt: ts('created_at').notNull().defaultNow(),
    deliveredAt: ts('delivered_at'),
  },
  (t) => [
    index('webhook_deliveries_due_idx').on(t.nextAttemptAt, t.id).where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_webhook_idx')
      .on(t.webhookId, t.event, t.id)
      .where(sql`${t.status} = 'pending'`),
  ],
);

/** Every call made to a webhook, the last 50 of each kept for the user to see. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    webhookId: text('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    event: text('event').notNull(),
    /** How many events the call carried (message.status goes in batches of up to 100). */
    events: integer('events').notNull(),
    at: ts('at').notNull().defaultNow(),
    durationMs: integer('duration_ms').notNull(),
    statusCode: integer('status_code'),
    ok: boolean('ok').notNull(),
    error: text('error'),
  },
  (t) => [index('webhook_attempts_webhook_idx').on(t.webhookId, t.id)],
);

/** Who did what to whom, when and from where: admin actions, sign-ins, keys and webhooks. */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    at: ts('at').notNull().defaultNow(),
    /** The user who acted; null for the operator CLI or an unknown username. */
    actorId: text('actor_id'),
    /** The actor as shown: a username at the time, or 'cli'. */
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    /** The user the action was about (the actor for their own sign-in, key or webhook). */
    targetUserId: text('target_user_id'),
    details: jsonb('details').$type<Record<string, unknown>>(),
    ip: text('ip'),
  },
  (t) => [
    index('audit_log_target_idx').on(t.targetUserId, t.id),
    index('audit_log_actor_idx').on(t.actorId, t.id),
  ],
);

/**
 * Idempotency-Key of the send routes: a repeated request with the same key and body within
 * 24 hours answers the first job instead of sending again. The row is written in the acceptance
 * transaction, so two concurrent duplicates cannot both send.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    /** sha256 of the route, account and body. */
    requestHash: text('request_hash').notNull(),
    /** The first answer, given again to a repeat. */
    response: jsonb('response').$type<Record<string, unknown>>(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] })],
);

/** A user's kept contact lists: imported from CSV or Excel, or saved from a group. */
export const contactLists = pgTable(
  'contact_lists',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The field keys its contacts carry (`name` and the imported columns), in column order. */
    fields: text('fields').array().notNull().default(sql`'{}'::text[]`),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('contact_lists_user_idx').on(t.userId, t.createdAt)],
);

/**
 * Where consent came from (India's DPDP Act): the user confirmed, at import, that the
 * people of a file agreed to receive messages and for what purpose; or the numbers came from a
 * group. Kept when the list or a person is erased: it describes the confirmation, not a person.
 */
export const consentGrants = pgTable(
  'consent_grants',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    source: text('source', { enum: ['import', 'group'] }).notNull(),
    /** As the user typed it; null for a group (its members did not state one). */
    purpose: text('purpose'),
    fileName: text('file_name'),
    listId: text('list_id'),
    groupId: text('group_id'),
    groupName: text('group_name'),
    accountId: text('session_id'),
    /** Who confirmed: the user's id and username at the time. */
    actorId: text('actor_id').notNull(),
    actor: text('actor').notNull(),
    at: ts('at').notNull().defaultNow(),
    /** How many numbers it covered when it was given. */
    numbers: integer('numbers').notNull().default(0),
  },
  (t) => [index('consent_grants_user_idx').on(t.userId, t.at)],
);

/** One number of a list (each once), with its fields for personalised text and its tags. */
export const contacts = pgTable(
  'contacts',
  {
    listId: text('list_id')
      .notNull()
      .references(() => contactLists.id, { onDelete: 'cascade' }),
    /** Row order of the import, for paging in file order. */
    position: integer('position').notNull(),
    phoneNumber: text('phone_number').notNull(),
    fields: jsonb('fields').$type<Record<string, string>>().notNull(),
    tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
    /**
     * The consent grant this number came with (null: none recorded). No foreign key: a
     * 1,000,000-row import would check it row by row; grants are never deleted but with their user.
     */
    consentGrantId: text('consent_grant_id'),
  },
  (t) => [
    primaryKey({ columns: [t.listId, t.phoneNumber] }),
    index('contacts_list_position_idx').on(t.listId, t.position),
    index('contacts_consent_phone_idx').on(t.phoneNumber).where(sql`consent_grant_id IS NOT NULL`),
  ],
);

/**
 * Addresses a user must not message any more (docs/decisions.md, Opt-outs): a phone number, or
 * the LID or BSUID a STOP came from when WhatsApp did not give the number. A person is opted out
 * when any of their addresses is (docs/people.md).
 */
export const optOuts = pgTable(
  'opt_outs',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The kind of address (contract/jid.ts AddressKind); 'phone' for every opt-out typed or imported. */
    addressKind: text('address_kind', { enum: ADDRESS_KINDS }).notNull().default('phone'),
    /** The address: phone digits with the country code, a LID's digits or a BSUID. */
    phoneNumber: text('phone_number').notNull(),
    /** 'reply' (they wrote an opt-out keyword) or 'manual' (the user or the API added it). */
    source: text('source', { enum: ['reply', 'manual'] }).notNull(),
    /** A reply's opt-out word as listed (contacts/opt-out-words.ts), its language, and the message as received. */
    keyword: text('keyword'),
    language: text('language'),
    message: text('message'),
    messageId: text('message_id'),
    accountId: text('session_id'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.addressKind, t.phoneNumber] })],
);

/**
 * A person of one user whose addresses WhatsApp has shown to belong together (docs/people.md).
 * An address no row names is a person of its own: people are written when two addresses are
 * joined, and when someone writes to one of the user's accounts (their Inbox thread's key).
 */
export const people = pgTable(
  'people',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('people_user_idx').on(t.userId)],
);

/** Each address of a person, once per user: merging two people repoints the addresses of one to the other. */
export const personAddresses = pgTable(
  'person_addresses',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ADDRESS_KINDS }).notNull(),
    value: text('value').notNull(),
    personId: text('person_id')
      .notNull()
      .references(() => people.id, { onDelete: 'cascade' }),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.kind, t.value] }),
    index('person_addresses_person_idx').on(t.personId),
  ],
);

/**
 * A Cloud API account's credentials and what Meta last said of its number (one row per account
 * of kind 'cloud'). The token, app secret and verify token are sealed like the WhatsApp keys
 * (db/secrets.ts, context cloudSecretContext).
 */
export const cloudAccounts = pgTable(
  'cloud_accounts',
  {
    accountId: text('session_id')
      .primaryKey()
      .references(() => accounts.accountId, { onDelete: 'cascade' }),
    phoneNumberId: text('phone_number_id').notNull(),
    wabaId: text('waba_id').notNull(),
    /**
     * The business portfolio that owns the WhatsApp Business Account (Graph's
     * `owner_business_info.id`), whose messaging limit the number shares; null until read.
     */
    portfolioId: text('portfolio_id'),
    accessToken: text('access_token').notNull(),
    appSecret: text('app_secret').notNull(),
    verifyToken: text('verify_token').notNull(),
    displayPhoneNumber: text('display_phone_number'),
    verifiedName: text('verified_name'),
    /** GREEN, YELLOW, RED, NA or UNKNOWN. */
    qualityRating: text('quality_rating'),
    /** TIER_250, TIER_2K, TIER_10K, TIER_100K, TIER_UNLIMITED; null when Meta gave none. */
    messagingLimitTier: text('messaging_limit_tier'),
    throughputLevel: text('throughput_level'),
    checkedAt: ts('checked_at'),
    templatesSyncedAt: ts('templates_synced_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('cloud_accounts_phone_number_id_idx').on(t.phoneNumberId)],
);

/** A Cloud API account's message templates, as last synced from GET /{waba-id}/message_templates. */
export const cloudTemplates = pgTable(
  'cloud_templates',
  {
    accountId: text('session_id')
      .notNull()
      .references(() => accounts.accountId, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    language: text('language').notNull(),
    category: text('category').notNull(),
    status: text('status').notNull(),
    bodyText: text('body_text').notNull(),
    /** The body's variables in order ('1', '2', … or the names of a NAMED template). */
    parameters: text('parameters').array().notNull(),
    named: boolean('named').notNull().default(false),
    headerFormat: text('header_format'),
    syncedAt: ts('synced_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.name, t.language] })],
);

/** What Meta charges per delivered message of a category, in paise (India rates by default; an admin edits them). */
export const cloudPrices = pgTable('cloud_prices', {
  /** marketing, utility, authentication, service. */
  category: text('category').primaryKey(),
  /** In ten-thousandths of a rupee, so that Meta's ₹0.8631 is exact (8631); no floats. */
  priceUnits: integer('price_units').notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/**
 * Credits per recipient for each kind of account, set by an admin; a kind without a
 * row costs 1. Each recipient keeps the price it was charged (message_job_recipients.price).
 */
export const creditPrices = pgTable('credit_prices', {
  /** 'linked' or 'cloud' (wa_sessions.kind). */
  kind: text('kind').primaryKey(),
  credits: integer('credits').notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/**
 * A Cloud API account's customer service windows: when each number last wrote to it. Meta ("Service
 * messages", developers.facebook.com/documentation/business-messaging/whatsapp/messages/send-messages):
 * a user's message starts a 24-hour window, a later one resets it; free-form messages only inside it.
 */
export const cloudServiceWindows = pgTable(
  'cloud_service_windows',
  {
    accountId: text('session_id')
      .notNull()
      .references(() => accounts.accountId, { onDelete: 'cascade' }),
    /** The number's digits, as Meta's `from`. */
    phone: text('phone').notNull(),
    lastInboundAt: ts('last_inbound_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.phone] })],
);

/**
 * Numbers a user erased: only a keyed hash of the number is kept (contacts/erasure.ts),
 * so new sends still leave the person out without the number being held.
 */
export const erasures = pgTable(
  'erasures',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    token: text('token').notNull(),
    actorId: text('actor_id'),
    at: ts('at').notNull().defaultNow(),
    /** When the tables that held the number were rewritten and the WAL moved past it (erasure-compaction.ts). */
    compactedAt: ts('compacted_at'),
  },
  (t) => [primaryKey({ columns: [t.userId, t.token] })],
);

/**
 * The messaging limit Meta shares among the Cloud API numbers of one business (Messaging Limits
 * page, developers.facebook.com/documentation/business-messaging/whatsapp/messaging-limits: "set
 * at the business portfolio level and are shared by all business phone numbers within a
 * portfolio"), counted here so that every node sending for the business counts the same
 * recipients. One row per business: its lock (a reservation holds it FOR UPDATE) and the limit
 * its numbers last read. Keyed by the portfolio's id, else the WhatsApp Business Account id (accounts/cloud/messaging-limit.ts says when).
 */
export const cloudPortfolios = pgTable('cloud_portfolios', {
  portfolio: text('portfolio').primaryKey(),
  /** Recipients in 24 hours as Meta last gave it (`whatsapp_business_manager_messaging_limit`); null: unlimited or not read yet. */
  messagingLimit: integer('messaging_limit'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/** The business's recipients of counted sends (templates) in the moving 24 hours: one row each, its latest send. */
export const cloudPortfolioRecipients = pgTable(
  'cloud_portfolio_recipients',
  {
    portfolio: text('portfolio')
      .notNull()
      .references(() => cloudPortfolios.portfolio, { onDelete: 'cascade' }),
    /** The recipient as Meta's `to` names it (digits). */
    recipient: text('recipient').notNull(),
    lastSentAt: ts('last_sent_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.portfolio, t.recipient] }),
    index('cloud_portfolio_recipients_window_idx').on(t.portfolio, t.lastSentAt),
  ],
);

/**
 * People who stopped (or resumed) marketing messages from a Cloud API business: Meta's
 * `user_preferences` webhook, or error 131050 on a send. Keyed by the WhatsApp Business Account id
 * and the address Meta gave (`wa_id` digits, else the `user_id` BSUID); the latest event wins.
 */
export const cloudMarketingPreferences = pgTable(
  'cloud_marketing_preferences',
  {
    wabaId: text('waba_id').notNull(),
    address: text('address').notNull(),
    /** true: stopped marketing messages; false: resumed them. */
    stopped: boolean('stopped').notNull(),
    /** When Meta said so (the webhook's timestamp, or when the 131050 came). */
    at: ts('at').notNull(),
    /** 'user_preferences' or 'error_131050'. */
    source: text('source').notNull(),
  },
  (t) => [primaryKey({ columns: [t.wabaId, t.address] })],
);

/**
 * A follow-up of a job's segment that waits for its time: when `due_at` comes, the segment is
 * taken as it stands then and sent as a new job with the id `id` (through the send path, with an
 * idempotency key of its own, so a sweep that runs twice makes one job).
 */
export const followUps = pgTable(
  'follow_ups',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The job whose recipients the segment is taken from. */
    jobId: text('job_id').notNull(),
    accountId: text('session_id').notNull(),
    segment: text('segment').notNull(),
    /** The message: `type`, `content` (and `mime`, `data`, `fileName`) as the send routes take them. */
    message: jsonb('message').$type<Record<string, unknown>>().notNull(),
    dueAt: ts('due_at').notNull(),
    state: text('state', { enum: FOLLOW_UP_STATES }).notNull().default('waiting'),
    error: text('error'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('follow_ups_due_idx').on(t.dueAt).where(sql`${t.state} = 'waiting'`),
    index('follow_ups_job_idx').on(t.jobId),
  ],
);

/** An account's keyword auto-replies: its rules, in order (the first that matches answers). */
export const autoReplyRules = pgTable('auto_reply_rules', {
  accountId: text('session_id')
    .primaryKey()
    .references(() => accounts.accountId, { onDelete: 'cascade' }),
  rules: jsonb('rules').$type<Array<Record<string, unknown>>>().notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/**
 * When a rule of an account last answered a person: one row per account, rule and person, so a
 * rule answers a person at most once per period (the row is claimed by one statement).
 */
export const autoRepliesSent = pgTable(
  'auto_replies_sent',
  {
    accountId: text('session_id')
      .notNull()
      .references(() => accounts.accountId, { onDelete: 'cascade' }),
    /** The rule's match and keyword as compared (autoReplyRuleKey). */
    ruleKey: text('rule_key').notNull(),
    /** Who was answered: the chat id of the address they wrote from (auto-reply.ts). */
    personKey: text('person_key').notNull(),
    sentAt: ts('sent_at').notNull(),
    jobId: text('job_id'),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.ruleKey, t.personKey] })],
);

/** A file a person sent in an incoming message: its type and name, and how its provider fetches it again. */
export type InboxMediaRef = { mime: string; fileName: string | null; ref: string };

/**
 * The Inbox's one row per person of a user who wrote to one of the user's accounts
 * (docs/people.md): what the list shows without reading the messages. Merging two people folds
 * their rows into one (contacts/people.ts joinAddresses), an erasure deletes it with the person.
 */
export const inboxThreads = pgTable(
  'inbox_threads',
  {
    personId: text('person_id')
      .primaryKey()
      .references(() => people.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The account the person last wrote to: an answer goes through it. */
    accountId: text('session_id').notNull(),
    /** The name WhatsApp gave with their latest message (push name, Cloud profile name). */
    name: text('name'),
    lastText: text('last_text').notNull(),
    lastType: text('last_type').notNull(),
    lastDirection: text('last_direction', { enum: ['in', 'out'] }).notNull(),
    lastAt: ts('last_at').notNull(),
    lastInAt: ts('last_in_at').notNull(),
    /** Messages from the person the owner has not opened. */
    unread: integer('unread').notNull().default(0),
    state: text('state', { enum: ['open', 'done'] })
      .notNull()
      .default('open'),
  },
  (t) => [
    // The list's pages, newest first (keyset on last_at, person_id).
    index('inbox_threads_user_last_idx').on(t.userId, t.lastAt.desc(), t.personId.desc()),
    // The sidebar's count of unread threads.
    index('inbox_threads_unread_idx').on(t.userId).where(sql`${t.unread} > 0`),
  ],
);

/**
 * The Inbox's messages: each one-to-one message a person sent to one of the user's accounts, and
 * the answers sent from the Inbox or by an auto-reply (their state is their job recipient's).
 * The messages of the user's other jobs to the person are read from the recipients.
 */
export const inboxMessages = pgTable(
  'inbox_messages',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    personId: text('person_id')
      .notNull()
      .references(() => people.id, { onDelete: 'cascade' }),
    accountId: text('session_id').notNull(),
    direction: text('direction', { enum: ['in', 'out'] }).notNull(),
    /** The chat id the message came from (in) or went to (out). */
    chatId: text('chat_id').notNull(),
    /** WhatsApp's id of an incoming message (a repeat of it is not stored twice); null for an answer. */
    messageId: text('message_id'),
    /** text, image, video, audio, document, sticker, poll_vote, template, … */
    type: text('type').notNull(),
    /** The text, or a file's caption; '' when there is none. */
    text: text('text').notNull(),
    media: jsonb('media').$type<InboxMediaRef | null>(),
    /** In: the job whose message this answers; out: the job that carries it. */
    jobId: text('job_id'),
    at: ts('at').notNull(),
  },
  (t) => [
    uniqueIndex('inbox_messages_incoming_idx')
      .on(t.accountId, t.messageId)
      .where(sql`${t.messageId} IS NOT NULL`),
    index('inbox_messages_person_idx').on(t.personId, t.at),
    // The list's filter "replies to this job".
    index('inbox_messages_job_idx').on(t.userId, t.jobId).where(sql`${t.jobId} IS NOT NULL`),
  ],
);
