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
    /** Base32 TOTP secret: set while two-factor sign-in is being set up, kept once it is on. */
    totpSecret: text('totp_secret'),
    /** When two-factor sign-in was turned on; null: off (a secret without it is a set-up in progress). */
    totpEnabledAt: ts('totp_enabled_at'),
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
export type SimulatorInboxItem = { from: string; text: string };

export const waSessions = pgTable(
  'wa_sessions',
  {
    id: text('id').primaryKey(),
    /** `<digits of the phone>_<random suffix>`, the id the API and the page use. */
    sessionId: text('session_id').notNull().unique(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    phoneNumber: text('phone_number').notNull(),
    sessionName: text('session_name').notNull(),
    status: text('status', { enum: ['CONNECTED', 'DISCONNECTED', 'PENDING'] })
      .notNull()
      .default('PENDING'),
    /** Why the session is not usable, in words; also set while WhatsApp's quota pauses its queue. */
    statusReason: text('status_reason'),
    /**
     * True while WhatsApp restricts the account's new one-to-one chats (error 463, the CAPPED
     * new-chat quota): its `@s.whatsapp.net` sends wait, group sends go on (DECISIONS.md).
     */
    sendPaused: boolean('send_paused').notNull().default(false),
    /** When that restriction ends, as WhatsApp gave it; null when it gave none (then only Resume sending lifts it). */
    sendPausedUntil: ts('send_paused_until'),
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
     * An order from the API to whichever node drives the session (restart, or the simulator's
     * link / disconnect / logout), taken and cleared by that node; `command_at` tells orders apart.
     */
    command: text('command', { enum: ['restart', 'link', 'disconnect', 'logout'] }),
    commandAt: ts('command_at'),
    /**
     * Texts the simulator's inbound route delivers to the account, oldest first, taken (and
     * cleared) by the node that drives the session, whose transport reports them as received.
     */
    simulatorInbox: jsonb('simulator_inbox').$type<SimulatorInboxItem[]>(),
    hasCredentials: boolean('has_credentials').notNull().default(false),
    ownerNode: text('owner_node'),
    leaseExpiresAt: ts('lease_expires_at'),
    /** Set by the API to ask the owning node for a fresh group fetch. */
    groupsRefreshRequestedAt: ts('groups_refresh_requested_at'),
    groupsFetchedAt: ts('groups_fetched_at'),
    connectedAt: ts('connected_at'),
    /** When `status` last changed: a job spread over accounts moves its recipients off one down for long. */
    statusChangedAt: ts('status_changed_at').notNull().defaultNow(),
    /** When the account was first linked (cleared when the phone unlinks it): the warm-up counts days from it. */
    linkedAt: ts('linked_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('wa_sessions_user_idx').on(t.userId), index('wa_sessions_owner_idx').on(t.ownerNode)],
);

/**
 * An account's sending policy (DECISIONS.md, sending policy per account). No row: the defaults.
 * A null `warm_up` or delay follows the server's settings. `held_*` is what the account's loop
 * last decided: why its recipients wait and until when (shown on its jobs).
 */
export const sessionPolicies = pgTable('session_policies', {
  sessionId: text('session_id')
    .primaryKey()
    .references(() => waSessions.sessionId, { onDelete: 'cascade' }),
  dailyLimit: integer('daily_limit'),
  warmUp: boolean('warm_up'),
  quietStart: text('quiet_start'),
  quietEnd: text('quiet_end'),
  timezone: text('timezone').notNull().default('Asia/Kolkata'),
  delayMinMs: integer('delay_min_ms'),
  delayMaxMs: integer('delay_max_ms'),
  typing: boolean('typing').notNull().default(true),
  heldReason: text('held_reason'),
  heldUntil: ts('held_until'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

export const waAuthState = pgTable(
  'wa_auth_state',
  {
    sessionId: text('session_id')
      .notNull()
      .references(() => waSessions.sessionId, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    /** JSON text written with Baileys' BufferJSON replacer. */
    value: text('value').notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.key] })],
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
    sessionId: text('session_id')
      .notNull()
      .references(() => waSessions.sessionId, { onDelete: 'cascade' }),
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
  (t) => [primaryKey({ columns: [t.sessionId, t.groupId] })],
);

/** Messages this product sent, kept so that the transport can answer retry requests and decrypt poll votes. */
export const waSentMessages = pgTable(
  'wa_sent_messages',
  {
    sessionId: text('session_id')
      .notNull()
      .references(() => waSessions.sessionId, { onDelete: 'cascade' }),
    messageId: text('message_id').notNull(),
    chatId: text('chat_id').notNull(),
    /** The proto message as JSON (BufferJSON). */
    message: text('message').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.sessionId, t.messageId] }),
    // The hourly prune of rows older than SENT_MESSAGES_KEEP_MS.
    index('wa_sent_messages_created_at_idx').on(t.createdAt),
  ],
);

export const media = pgTable('media', {
  /** sha256 of the bytes, hex: the same file is stored once. */
  id: text('id').primaryKey(),
  mime: text('mime').notNull(),
  size: integer('size').notNull(),
  bytes: bytea('bytes').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export type StoredPoll = {
  pollName: string;
  pollOptions: string[];
  options: { allowMultipleAnswers: boolean };
};

export const messageJobs = pgTable(
  'message_jobs',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The session's public id; kept as text so the job outlives a terminated session. */
    sessionId: text('session_id').notNull(),
    /**
     * Every account sharing the job, `session_id` first, when it is spread over several (null:
     * only `session_id`). Each recipient's own `session_id` says which account sends it.
     */
    sessionIds: text('session_ids').array(),
    audience: text('audience', { enum: ['groups', 'individuals'] }).notNull(),
    messageType: text('message_type', { enum: ['text', 'media', 'poll'] }).notNull(),
    /** Text, caption, or for polls the JSON text of the poll. */
    content: text('content').notNull(),
    poll: jsonb('poll').$type<StoredPoll | null>(),
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
    /** Since when due recipients have been held because the session cannot send (down or paused); null while it can. */
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
    index('message_jobs_session_status_idx').on(t.sessionId, t.status),
    // The jobs waiting for an account, for the sweep's waiting clocks (few rows; without it the
    // sweep read every job of every user each second).
    index('message_jobs_waiting_idx').on(t.waitingSince).where(sql`${t.waitingSince} IS NOT NULL`),
    // The live jobs spread over accounts, for the failover sweep (few rows).
    index('message_jobs_spread_live_idx')
      .on(t.id)
      .where(sql`${t.sessionIds} IS NOT NULL AND ${t.status} IN ('pending', 'processing', 'scheduled')`),
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
  sessionId: text('session_id').notNull(),
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
    sessionId: text('session_id').notNull(),
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
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('recipients_job_idx').on(t.jobId, t.id),
    index('recipients_due_idx').on(t.sessionId, t.dueAt, t.id).where(sql`${t.status} = 'queued'`),
    index('recipients_sending_idx').on(t.leaseExpiresAt).where(sql`${t.status} = 'sending'`),
    // An account's messages of its local day, counted against its daily limit and warm-up.
    index('recipients_session_sent_idx').on(t.sessionId, t.sentAt).where(sql`${t.status} = 'sent'`),
    // Partial: rows are inserted without a message id, so the bulk insert does not maintain this index.
    index('recipients_message_idx').on(t.sessionId, t.messageId).where(sql`${t.messageId} IS NOT NULL`),
  ],
);

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
    /** The HMAC key, kept as given to the user (deliveries are signed with it). */
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
    event: text('event', { enum: ['job.finished', 'message.status', 'session.status', 'optout'] }).notNull(),
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
    /** sha256 of the route, session and body. */
    requestHash: text('request_hash').notNull(),
    /** The first answer, given again to a repeat. */
    response: jsonb('response').$type<Record<string, unknown>>(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] })],
);

/** A user's kept contact lists (issue 15): imported from CSV or Excel, or saved from a group. */
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
  },
  (t) => [
    primaryKey({ columns: [t.listId, t.phoneNumber] }),
    index('contacts_list_position_idx').on(t.listId, t.position),
  ],
);

/** Numbers a user must not message any more (DECISIONS.md, Opt-outs). */
export const optOuts = pgTable(
  'opt_outs',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    phoneNumber: text('phone_number').notNull(),
    /** 'reply' (they wrote an opt-out keyword) or 'manual' (the user or the API added it). */
    source: text('source', { enum: ['reply', 'manual'] }).notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.phoneNumber] })],
);
