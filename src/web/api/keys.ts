/**
 * Every query key of the web app, in one registry, so that queries, mutations and the event
 * handlers address the same cache entries.
 */
export const qk = {
  session: ['session'] as const,
  authOptions: ['auth-options'] as const,
  projects: ['projects'] as const,
  project: (ref: string) => ['project', ref.toUpperCase()] as const,
  columns: (projectId: string) => ['columns', projectId] as const,
  tickets: (projectId: string) => ['tickets', projectId] as const,
  members: (projectId: string) => ['members', projectId] as const,
  labels: (projectId: string) => ['labels', projectId] as const,
  templates: (projectId: string) => ['templates', projectId] as const,
  sprints: (projectId: string) => ['sprints', projectId] as const,
  sprintSettings: (projectId: string) => ['sprint-settings', projectId] as const,
  burndown: (projectId: string, sprintId: string) => ['burndown', projectId, sprintId] as const,
  velocity: (projectId: string) => ['velocity', projectId] as const,
  epics: (projectId: string) => ['epics', projectId] as const,
  /** Every timeline window of a project (prefix of `timelineWindow`). */
  timeline: (projectId: string) => ['timeline', projectId] as const,
  timelineWindow: (projectId: string, from: string, to: string) => ['timeline', projectId, from, to] as const,
  epicChildren: (projectId: string, epicId: string) => ['epic-children', projectId, epicId] as const,
  /** Every full ticket read of a project (prefix of `ticket`). */
  ticketsOf: (projectId: string) => ['ticket', projectId] as const,
  ticket: (projectId: string, ref: string) => ['ticket', projectId, ref.toUpperCase()] as const,
  comments: (ticketId: string) => ['comments', ticketId] as const,
  attachments: (ticketId: string) => ['attachments', ticketId] as const,
  history: (ticketId: string) => ['history', ticketId] as const,
  uploadConfig: ['upload-config'] as const,
  users: (search: string) => ['users', search] as const,
  me: ['me'] as const,
  keyStatus: ['mcp-key'] as const,
  adminUsers: (path: string) => ['admin-users', path] as const,
  adminSettings: ['admin-settings'] as const,
  /** Every inbox list (prefix of `notificationList`). */
  notifications: ['notifications'] as const,
  notificationList: (filter: string) => ['notifications', filter] as const,
  unreadCount: ['notifications-unread'] as const,
  notificationSettings: ['notification-settings'] as const,
  search: (q: string, limit: number) => ['search', q, limit] as const,
  views: ['views'] as const,
  webhooks: (projectId: string) => ['webhooks', projectId] as const,
  deliveries: (projectId: string, webhookId: string) => ['webhook-deliveries', projectId, webhookId] as const,
};

/**
 * The planning pages' reads of a project (epics, every timeline window, open children lists): a
 * ticket write changes them. A tab's own writes do not come back on its event stream, so its ticket
 * writes refresh them too.
 */
export const planningKeys = (projectId: string) => [
  qk.epics(projectId),
  qk.timeline(projectId),
  ['epic-children', projectId],
];
