// Request examples of the notification channel operations (docs/decisions/0407 and 0730).
export const notificationExamples = Object.freeze({
  createNotificationChannel: {
    name: 'on-call',
    kind: 'SLACK',
    webhook_url: 'https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXX',
    events: ['BACKUP_FAILED', 'BACKUP_DRILL_FAILED', 'BACKUP_OVERDUE', 'DEPLOYMENT_FAILED'],
    enabled: true,
  },
  editNotificationChannel: { kind: 'EMAIL', recipients: ['ops@acme.example.com', 'cto@acme.example.com'] },
});
