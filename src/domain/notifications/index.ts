/** Notifications (issue 18): the one entry point the rest of the domain imports. */

export { composeDueDigests } from './digest.js';
export { listNotifications, markNotificationsRead } from './inbox.js';
export { forgetProjectNotifications } from './notify.js';
export {
  getNotificationSettings,
  UNSUBSCRIBE_INVALID,
  unsubscribeByToken,
  updateNotificationSettings,
} from './settings.js';
export {
  notifyCommentCreated,
  notifyCommentEdited,
  notifyMemberAdded,
  notifySprint,
  notifyTicketCreated,
  notifyTicketsChanged,
  notifyWebhookDisabled,
} from './triggers.js';
