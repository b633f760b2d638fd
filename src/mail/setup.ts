import type { FastifyInstance } from 'fastify';
import type { Services } from '../domain/context.js';
import { mailEnabled } from '../domain/notifications/settings.js';
import { MailSender } from './sender.js';

/** Runs the outbox sender in this instance when e-mail is configured (and DOCKET_MAIL_SENDER is on). */
export function setupMail(app: FastifyInstance, services: Services): MailSender | null {
  const { smtpUrl, mailFrom } = services.config;
  if (Boolean(smtpUrl) !== Boolean(mailFrom))
    services.log.warn(
      'e-mail is off: set both DOCKET_SMTP_URL and DOCKET_MAIL_FROM to send notification e-mail',
    );
  if (!mailEnabled(services.config) || !services.config.mailSender) return null;
  const sender = new MailSender({ ...services, db: { ...services.db } });
  app.addHook('onReady', async () => sender.start());
  app.addHook('preClose', async () => sender.stop());
  return sender;
}
