/** Notifications (issue 18): the one entry point the rest of the domain imports. */

export { listNotifications, markNotificationsRead } from './inbox.js';
export { forgetProjectNotifications } from './notify.js';
export { getNotificationSettings, updateNotificationSettings } from './settings.js';
export {
  notifyCommentCreated,
  notifyCommentEdited,
  notifyMemberAdded,
  notifySprint,
  notifyTicketChanged,
  notifyTicketCreated,
} from './triggers.js';
