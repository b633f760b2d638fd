/** The process configuration, read once from the environment (README "Configuration"); every layer may read it. */
import path from 'node:path';
import { z } from 'zod';

/** How new passwords are hashed: `standard` in production, `test` (cheap) in the test suite only. */
export type PasswordHashing = 'standard' | 'test';

const int = (min: number, max: number) =>
  z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(min).max(max);

/**
 * The read cache's default budget in MB: a team's working set, 10,000 full ticket reads of about
 * 2 KB each with their keys and entries, the board lists of a few of its columns and the look-ups
 * of its people (docs/decisions/062-read-path-and-deferred-notifications.md).
 */
export const READ_CACHE_DEFAULT_MB = 32;

const schema = z.object({
  PORT: int(0, 65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DOCKET_DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  DOCKET_PUBLIC_URL: z.url({ error: 'must be a full URL such as https://docket.example.com' }).optional(),
  DOCKET_BASE_PATH: z
    .string()
    .regex(/^(\/[A-Za-z0-9._~-]+)*\/?$/, 'must be a path such as /docket')
    .default('')
    .transform((v) => v.replace(/\/+$/, '')),
  DOCKET_ADMIN_USERNAME: z.string().optional(),
  DOCKET_ADMIN_PASSWORD: z.string().optional(),
  DOCKET_REGISTRATION: z.enum(['open', 'closed'], { error: 'must be open or closed' }).default('open'),
  DOCKET_REGISTER_LIMIT: int(1, 1_000_000).default(5),
  DOCKET_REGISTER_WINDOW_SECONDS: int(1, 86_400 * 30).default(900),
  DOCKET_LOGIN_LIMIT: int(1, 1_000_000).default(10),
  DOCKET_SESSION_DAYS: int(1, 3650).default(30),
  DOCKET_SSE_KEEPALIVE_SECONDS: z.coerce
    .number({ error: 'must be a number' })
    .positive()
    .max(3600)
    .default(30),
  DOCKET_BODY_LIMIT_BYTES: int(1024, 1024 ** 3).default(1_048_576),
  DOCKET_BACKUP_MAX_BYTES: int(1024, 1024 ** 4).default(20 * 1024 ** 3),
  DOCKET_IMPORT_MAX_BYTES: int(1024, 1024 ** 4).default(1024 ** 3),
  DOCKET_READ_CACHE_MB: int(0, 4096).default(READ_CACHE_DEFAULT_MB),
  DOCKET_SEARCH_MMAP_MB: int(0, 1024 ** 2).default(2048),
  DOCKET_TRUST_PROXY: z
    .string()
    .default('false')
    .transform((v, c): TrustProxy => {
      const t = v.trim().toLowerCase();
      if (['false', 'no', '0', ''].includes(t)) return false;
      // `true` trusts the one proxy in front: the address it saw, never a client-written one.
      if (['true', 'yes'].includes(t)) return 1;
      if (/^\d+$/.test(t)) return Math.min(Number(t), 100);
      const list = t
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean);
      if (
        list.length > 0 &&
        list.every((a) => /^[0-9a-f.:]+(\/\d{1,3})?$/.test(a) || /^(loopback|linklocal|uniquelocal)$/.test(a))
      )
        return list;
      c.addIssue({
        code: 'custom',
        message: 'must be false, a number of proxy hops, or proxy addresses (comma-separated, CIDR allowed)',
      });
      return z.NEVER;
    }),
  DOCKET_LOGIN_ADDRESS_LIMIT: int(1, 1_000_000).default(50),
  DOCKET_UPLOAD_QUOTA_BYTES: int(0, 1024 ** 5).default(2 * 1024 ** 3),
  DOCKET_REQUEST_TIMEOUT_SECONDS: int(1, 86_400).default(300),
  DOCKET_AUDIT_DAYS: int(1, 36_500).default(365),
  DOCKET_SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^/]/, 'must be an smtp:// or smtps:// URL such as smtp://user:pass@host:587')
    .optional(),
  DOCKET_MAIL_FROM: z.string().min(3).max(320).optional(),
  DOCKET_MAIL_SENDER: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
  DOCKET_MAIL_LEASE_SECONDS: int(2, 3600).default(120),
  DOCKET_NOTIFICATION_WORKER: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
  DOCKET_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').max(500).optional(),
  DOCKET_DRAIN_SECONDS: int(0, 600).default(5),
  DOCKET_S3_ENDPOINT: z.url({ error: 'must be a full URL such as https://s3.example.com' }).optional(),
  DOCKET_S3_BUCKET: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
      'must be a bucket name (3-63 lower-case letters, digits, dots, dashes)',
    )
    .optional(),
  DOCKET_S3_REGION: z.string().min(1).default('us-east-1'),
  DOCKET_S3_ACCESS_KEY_ID: z.string().optional(),
  DOCKET_S3_SECRET_ACCESS_KEY: z.string().optional(),
  DOCKET_S3_FORCE_PATH_STYLE: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  DOCKET_S3_PRESIGN: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  DOCKET_OIDC_ISSUER: z.url({ error: 'must be the provider URL, such as https://id.example.com' }).optional(),
  DOCKET_OIDC_CLIENT_ID: z.string().min(1).max(1000).optional(),
  DOCKET_OIDC_CLIENT_SECRET: z.string().min(1).max(1000).optional(),
  DOCKET_OIDC_NAME: z.string().trim().min(1).max(60).default('Single sign-on'),
  DOCKET_OIDC_CREATE_ACCOUNTS: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
  DOCKET_OIDC_ALLOWED_DOMAINS: z
    .string()
    .default('')
    .transform((v, c) => {
      const list = v
        .split(',')
        .map((d) => d.trim().toLowerCase())
        .filter(Boolean);
      if (list.every((d) => /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(d))) return list;
      c.addIssue({
        code: 'custom',
        message: 'must be e-mail domains, comma-separated (example.com,example.org)',
      });
      return z.NEVER;
    }),
  DOCKET_OIDC_ONLY: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  DOCKET_WEBHOOK_ALLOW_PRIVATE: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('false'),
  DOCKET_WEBHOOK_SENDER: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
  DOCKET_WEBHOOK_TIMEOUT_SECONDS: int(1, 300).default(10),
  DOCKET_WEBHOOK_LEASE_SECONDS: int(2, 3600).default(60),
  DOCKET_WEBHOOK_RETRY_SECONDS: int(1, 30 * 86_400).default(86_400),
  DOCKET_WEBHOOK_BACKOFF_SECONDS: z.coerce
    .number({ error: 'must be a number' })
    .positive()
    .max(3600)
    .default(10),
  DOCKET_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/**
 * Which proxies are trusted to name the client (X-Forwarded-For, -Proto, -Host): none, the last
 * N hops, or these addresses. The client's address is the first one not written by a trusted proxy.
 */
export type TrustProxy = false | number | string[];

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  publicUrl?: string;
  basePath: string;
  adminUsername?: string;
  adminPassword?: string;
  registration: 'open' | 'closed';
  registerLimit: number;
  registerWindowSeconds: number;
  loginLimit: number;
  sessionDays: number;
  sseKeepaliveSeconds: number;
  bodyLimitBytes: number;
  /** Largest backup file accepted by POST /api/admin/database/import. */
  backupMaxBytes: number;
  /** Largest file accepted by a ticket import (docs/import.md). */
  importMaxBytes: number;
  trustProxy: TrustProxy;
  /** Password attempts per client address per window, over all accounts (src/domain/attempts.ts). */
  loginAddressLimit: number;
  /** Bytes of attachments and uploaded files one user may store; 0 for no quota. */
  uploadQuotaBytes: number;
  /** Longest time to receive a whole request (headers and body): a half-sent body ends then. */
  requestTimeoutSeconds: number;
  /** Days the audit log keeps an entry. */
  auditDays: number;
  logLevel: string;
  /** Bytes the read cache may hold (0: off). */
  readCacheBytes: number;
  /** SQLite: bytes of the database file the search connection maps (0: none; decision 038). */
  searchMmapBytes: number;
  /** SMTP server for notification e-mail; e-mail is off unless this and mailFrom are set. */
  smtpUrl?: string;
  /** The From of notification e-mail, `Docket <docket@example.com>` or an address. */
  mailFrom?: string;
  /** Whether this instance runs the outbox sender (`off`: it only writes the outbox). */
  mailSender: boolean;
  /**
   * Whether this instance makes the notifications that changes left to do (DOCKET_NOTIFICATION_WORKER,
   * src/domain/notifications/jobs.ts); any instance that runs one takes its share.
   */
  notificationWorker: boolean;
  /** How long a claimed outbox message is this instance's before another may send it. */
  mailLeaseSeconds: number;
  /** The Bearer token of GET /metrics; unset: no metrics (src/server/metrics.ts). */
  metricsToken?: string;
  /** On SIGTERM: seconds answering /api/ready 503 before the streams close and the server stops. */
  drainSeconds: number;
  /** Files in an S3-compatible bucket instead of the data directory (src/files/s3-store.ts). */
  s3?: S3Config;
  /** Single sign-on with OpenID Connect (docs/security.md); absent when DOCKET_OIDC_ISSUER is not set. */
  oidc?: OidcConfig;
  /** Whether hooks may target loopback, link-local and private addresses (src/domain/webhooks/targets.ts). */
  webhookAllowPrivate: boolean;
  /** Whether this instance runs the webhook sender (`off`: it only writes the outbox). */
  webhookSender: boolean;
  /** Longest wait for a receiver's whole answer. */
  webhookTimeoutSeconds: number;
  /** How long a claimed delivery is this instance's before another may send it. */
  webhookLeaseSeconds: number;
  /** How long a delivery is retried, and a failing hook kept on (a day). */
  webhookRetrySeconds: number;
  /** The first retry's delay; each next one doubles, up to an hour. */
  webhookBackoffSeconds: number;
  /** PostgreSQL schema (tests only). */
  pgSchema?: string;
  /** Argon2 setting of new password hashes; only the test suite sets `test` (src/domain/passwords.ts). */
  passwordHashing?: PasswordHashing;
  /** Check every JSON answer and event against its declared schema (the test suite only). */
  checkContracts?: boolean;
}

/** The S3-compatible bucket that holds the files when `DOCKET_S3_BUCKET` is set. */
export interface S3Config {
  /** Omitted for AWS itself (the region's endpoint). */
  endpoint?: string;
  bucket: string;
  region: string;
  /** Both or neither; without them the SDK's own credential chain (instance role, AWS_*). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** `https://endpoint/bucket/key` instead of `https://bucket.endpoint/key` (MinIO and most others). */
  forcePathStyle: boolean;
  /** Downloads redirect to a short-lived presigned URL instead of streaming through Docket. */
  presign: boolean;
}

/** Single sign-on with OpenID Connect, when `DOCKET_OIDC_ISSUER` is set (docs/security.md). */
export interface OidcConfig {
  issuer: string;
  clientId: string;
  /** Absent for a public client (PKCE only). */
  clientSecret?: string;
  /** The sign-in button's label. */
  name: string;
  /** Whether a first sign-in with no matching account creates one (default: registration is open). */
  createAccounts: boolean;
  /** E-mail domains allowed to sign in this way (verified e-mail required); empty: any. */
  allowedDomains: string[];
  /** Password sign-in (and registration, forgotten passwords) only for system administrators. */
  only: boolean;
}

export class ConfigError extends Error {}

/** Reads and validates the configuration; a bad value stops the start with a message naming it. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.DOCKET_WEBHOOK_LEASE_SECONDS <= e.DOCKET_WEBHOOK_TIMEOUT_SECONDS) {
    throw new ConfigError(
      'Invalid configuration:\n  DOCKET_WEBHOOK_LEASE_SECONDS: must be longer than DOCKET_WEBHOOK_TIMEOUT_SECONDS',
    );
  }
  if (e.DOCKET_ADMIN_USERNAME && !e.DOCKET_ADMIN_PASSWORD) {
    throw new ConfigError(
      'Invalid configuration:\n  DOCKET_ADMIN_PASSWORD: required when DOCKET_ADMIN_USERNAME is set',
    );
  }
  const s3Named = Object.keys(cleaned).filter((k) => k.startsWith('DOCKET_S3_') && k !== 'DOCKET_S3_BUCKET');
  if (!e.DOCKET_S3_BUCKET && s3Named.length > 0) {
    throw new ConfigError(
      `Invalid configuration:\n  DOCKET_S3_BUCKET: required when ${s3Named.join(', ')} ${s3Named.length > 1 ? 'are' : 'is'} set`,
    );
  }
  if (!e.DOCKET_S3_ACCESS_KEY_ID !== !e.DOCKET_S3_SECRET_ACCESS_KEY) {
    throw new ConfigError(
      'Invalid configuration:\n  DOCKET_S3_ACCESS_KEY_ID, DOCKET_S3_SECRET_ACCESS_KEY: set both or neither',
    );
  }
  if (!e.DOCKET_OIDC_ISSUER && e.DOCKET_OIDC_ONLY === 'true') {
    throw new ConfigError(
      'Invalid configuration:\n  DOCKET_OIDC_ONLY: needs DOCKET_OIDC_ISSUER (single sign-on)',
    );
  }
  if (e.DOCKET_OIDC_ISSUER && !e.DOCKET_OIDC_CLIENT_ID) {
    throw new ConfigError(
      'Invalid configuration:\n  DOCKET_OIDC_CLIENT_ID: required when DOCKET_OIDC_ISSUER is set',
    );
  }
  return {
    s3: e.DOCKET_S3_BUCKET
      ? {
          endpoint: e.DOCKET_S3_ENDPOINT,
          bucket: e.DOCKET_S3_BUCKET,
          region: e.DOCKET_S3_REGION,
          accessKeyId: e.DOCKET_S3_ACCESS_KEY_ID,
          secretAccessKey: e.DOCKET_S3_SECRET_ACCESS_KEY,
          forcePathStyle: e.DOCKET_S3_FORCE_PATH_STYLE === 'true',
          presign: e.DOCKET_S3_PRESIGN === 'true',
        }
      : undefined,
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.DOCKET_DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    publicUrl: e.DOCKET_PUBLIC_URL,
    basePath: e.DOCKET_BASE_PATH,
    adminUsername: e.DOCKET_ADMIN_USERNAME,
    adminPassword: e.DOCKET_ADMIN_PASSWORD,
    registration: e.DOCKET_REGISTRATION,
    registerLimit: e.DOCKET_REGISTER_LIMIT,
    registerWindowSeconds: e.DOCKET_REGISTER_WINDOW_SECONDS,
    loginLimit: e.DOCKET_LOGIN_LIMIT,
    sessionDays: e.DOCKET_SESSION_DAYS,
    sseKeepaliveSeconds: e.DOCKET_SSE_KEEPALIVE_SECONDS,
    bodyLimitBytes: e.DOCKET_BODY_LIMIT_BYTES,
    backupMaxBytes: e.DOCKET_BACKUP_MAX_BYTES,
    importMaxBytes: e.DOCKET_IMPORT_MAX_BYTES,
    trustProxy: e.DOCKET_TRUST_PROXY,
    loginAddressLimit: e.DOCKET_LOGIN_ADDRESS_LIMIT,
    uploadQuotaBytes: e.DOCKET_UPLOAD_QUOTA_BYTES,
    requestTimeoutSeconds: e.DOCKET_REQUEST_TIMEOUT_SECONDS,
    auditDays: e.DOCKET_AUDIT_DAYS,
    logLevel: e.DOCKET_LOG_LEVEL,
    readCacheBytes: e.DOCKET_READ_CACHE_MB * 1024 * 1024,
    searchMmapBytes: e.DOCKET_SEARCH_MMAP_MB * 1024 * 1024,
    smtpUrl: e.DOCKET_SMTP_URL,
    mailFrom: e.DOCKET_MAIL_FROM,
    mailSender: e.DOCKET_MAIL_SENDER === 'on',
    notificationWorker: e.DOCKET_NOTIFICATION_WORKER === 'on',
    mailLeaseSeconds: e.DOCKET_MAIL_LEASE_SECONDS,
    metricsToken: e.DOCKET_METRICS_TOKEN,
    drainSeconds: e.DOCKET_DRAIN_SECONDS,
    oidc:
      e.DOCKET_OIDC_ISSUER && e.DOCKET_OIDC_CLIENT_ID
        ? {
            issuer: e.DOCKET_OIDC_ISSUER,
            clientId: e.DOCKET_OIDC_CLIENT_ID,
            clientSecret: e.DOCKET_OIDC_CLIENT_SECRET,
            name: e.DOCKET_OIDC_NAME,
            createAccounts: e.DOCKET_OIDC_CREATE_ACCOUNTS
              ? e.DOCKET_OIDC_CREATE_ACCOUNTS === 'true'
              : e.DOCKET_REGISTRATION === 'open',
            allowedDomains: e.DOCKET_OIDC_ALLOWED_DOMAINS,
            only: e.DOCKET_OIDC_ONLY === 'true',
          }
        : undefined,
    webhookAllowPrivate: e.DOCKET_WEBHOOK_ALLOW_PRIVATE === 'true',
    webhookSender: e.DOCKET_WEBHOOK_SENDER === 'on',
    webhookTimeoutSeconds: e.DOCKET_WEBHOOK_TIMEOUT_SECONDS,
    webhookLeaseSeconds: e.DOCKET_WEBHOOK_LEASE_SECONDS,
    webhookRetrySeconds: e.DOCKET_WEBHOOK_RETRY_SECONDS,
    webhookBackoffSeconds: e.DOCKET_WEBHOOK_BACKOFF_SECONDS,
  };
}
