/**
 * Mentions: `@username` in Markdown (a ticket description or a comment). The one rule for the
 * server (who is mentioned) and the web app (autocomplete and links). No zod here.
 *
 * A mention starts at the beginning of the text or after a character that cannot be part of a
 * word or an e-mail address, and is 3-30 letters, digits, dashes or underscores. Code spans and
 * fenced code blocks do not mention anyone.
 */
export const MENTION_PATTERN = /(^|[^A-Za-z0-9_.@/-])@([A-Za-z0-9_-]{3,30})(?![A-Za-z0-9_-])/g;

/** The text without fenced code blocks and inline code spans (replaced by spaces, offsets kept). */
export function withoutCode(markdown: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  return markdown
    .replace(/(^|\n)(```|~~~)[^\n]*\n[\s\S]*?(\n\2[^\n]*(?=\n|$)|$)/g, blank)
    .replace(/`[^`\n]*`/g, blank);
}

/** The usernames mentioned, lower-cased, each once, in order of first appearance. */
export function mentionedUsernames(markdown: string | null | undefined): string[] {
  if (!markdown) return [];
  const out = new Set<string>();
  for (const m of withoutCode(markdown).matchAll(MENTION_PATTERN)) out.add(m[2].toLowerCase());
  return [...out];
}

/**
 * The kinds of notification (docs/notifications.md), in order of importance: when one change gives a
 * person several reasons, or changes fold into one notification, the most important kind is kept.
 */
export const NOTIFICATION_TYPES = [
  'mentioned',
  'assigned',
  'commented',
  'updated',
  'added_to_project',
  'sprint_started',
  'sprint_completed',
  'webhook_disabled',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** Types e-mailed at once even when the rest waits for the digest. */
export const URGENT_NOTIFICATION_TYPES: readonly NotificationType[] = [
  'mentioned',
  'assigned',
  'webhook_disabled',
];

export const EMAIL_MODES = ['off', 'instant', 'digest'] as const;
export type EmailMode = (typeof EMAIL_MODES)[number];

/** The one-line headline of a notification, in the inbox and in its e-mail alike. */
export function notificationHeadline(n: {
  type: NotificationType;
  actor: { name: string | null; username: string } | null;
  project: { key: string };
}): string {
  const who = n.actor ? (n.actor.name ?? n.actor.username) : 'Someone';
  switch (n.type) {
    case 'mentioned':
      return `${who} mentioned you`;
    case 'assigned':
      return `${who} assigned you`;
    case 'commented':
      return `${who} commented`;
    case 'updated':
      return `${who} changed`;
    case 'added_to_project':
      return `${who} added you to ${n.project.key}`;
    case 'sprint_started':
      return `${who} started a sprint`;
    case 'sprint_completed':
      return `${who} completed a sprint`;
    case 'webhook_disabled':
      return `A webhook of ${n.project.key} was turned off`;
  }
}
