import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  getNotificationSettings,
  listNotifications,
  markNotificationsRead,
  updateNotificationSettings,
} from '../../domain/notifications/index.js';
import {
  markReadBody,
  markReadOut,
  notificationListOut,
  notificationListQuery,
  notificationSettingsBody,
  notificationSettingsOut,
} from '../../shared/notifications.js';

const tags = ['Notifications'];

/** The inbox and the notification settings of the signed-in user (docs/notifications.md). */
export const notificationsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/me/notifications',
    {
      schema: {
        tags,
        summary: 'My notifications, newest activity first, with the unread count',
        querystring: notificationListQuery,
        response: { 200: notificationListOut },
      },
    },
    async (req) => listNotifications(req.ctx, req.query),
  );

  app.post(
    '/api/me/notifications/read',
    {
      schema: {
        tags,
        summary: 'Mark notifications read: {ids} or {all: true}',
        body: markReadBody,
        response: { 200: markReadOut },
      },
    },
    async (req) => markNotificationsRead(req.ctx, req.body),
  );

  app.get(
    '/api/me/notification-settings',
    { schema: { tags, summary: 'My e-mail preferences', response: { 200: notificationSettingsOut } } },
    async (req) => getNotificationSettings(req.ctx),
  );

  app.patch(
    '/api/me/notification-settings',
    {
      schema: {
        tags,
        summary: 'Change my e-mail preferences',
        body: notificationSettingsBody,
        response: { 200: notificationSettingsOut },
      },
    },
    async (req) => updateNotificationSettings(req.ctx, req.body),
  );
};
