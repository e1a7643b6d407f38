/**
 * What document 000 publishes, written down once from the document, so the mail tests compare the
 * contract with the document rather than with itself.
 */

/** Every route the document names: method, path (relative to `{base_url}/mail`), operationId we gave it. */
export const publishedRoutes: ReadonlyArray<readonly [method: string, path: string, operationId: string]> = [
  // OAuth
  ['get', '/.well-known/oauth-authorization-server', 'getOAuthServerMetadata'],
  ['post', '/api/oauth/register', 'registerOAuthClient'],
  ['get', '/api/oauth/authorize', 'authorizeOAuthClient'],
  ['post', '/api/oauth/token', 'exchangeOAuthToken'],
  ['post', '/api/oauth/revoke', 'revokeOAuthToken'],
  // Sending and channels
  ['post', '/v1/send', 'sendEmail'],
  ['post', '/v1/channels/whatsapp/send', 'sendWhatsAppMessage'],
  ['post', '/v1/channels/push/send', 'sendPushNotification'],
  ['patch', '/v1/contacts/{id}', 'updateContact'],
  // Segments
  ['get', '/api/segments', 'listSegments'],
  ['post', '/api/segments', 'createSegment'],
  ['get', '/api/segments/{id}', 'getSegment'],
  ['patch', '/api/segments/{id}', 'updateSegment'],
  ['delete', '/api/segments/{id}', 'deleteSegment'],
  ['post', '/api/segments/{id}/preview', 'previewSegment'],
  ['post', '/api/segments/{id}/refresh', 'refreshSegment'],
  ['get', '/v1/segments/{id}/members', 'listSegmentMembers'],
  // Email validation
  ['post', '/v1/validate', 'validateEmails'],
  ['get', '/v1/validate', 'getValidationBalance'],
  // DMARC monitoring
  ['get', '/v1/dmarc/domains', 'listMonitoredDomains'],
  ['post', '/v1/dmarc/domains', 'addMonitoredDomain'],
  ['delete', '/v1/dmarc/domains', 'removeMonitoredDomain'],
  // Webhook management
  ['get', '/v1/webhooks', 'listWebhooks'],
  ['post', '/v1/webhooks', 'createWebhook'],
  ['patch', '/v1/webhooks/{id}', 'updateWebhook'],
  ['delete', '/v1/webhooks/{id}', 'deleteWebhook'],
  ['get', '/v1/webhooks/{id}/events', 'listWebhookDeliveries'],
  // Provider and internal webhooks
  ['post', '/webhooks/fbl', 'receiveFeedbackReport'],
  ['get', '/webhooks/fbl', 'getFeedbackLoopHealth'],
  ['post', '/webhooks/mailserver-a', 'receiveMailServerAEvent'],
  ['post', '/webhooks/mailserver-b', 'receiveMailServerBEvent'],
  ['post', '/webhooks/auto-translate', 'translateStoredEmail'],
  // Notifications
  ['get', '/api/notifications', 'listNotifications'],
  ['patch', '/api/notifications', 'markNotificationsRead'],
  // Referrals
  ['get', '/referrals', 'getReferralSummary'],
  ['post', '/referrals/generate', 'generateReferralCode'],
  ['get', '/referrals/leaderboard', 'getReferralLeaderboard'],
  ['get', '/referrals/milestones', 'listReferralMilestones'],
  ['post', '/referrals/claim', 'claimReferralMilestone'],
  ['get', '/referrals/milestone-claims', 'listMilestoneClaims'],
  ['get', '/referrals/nudge', 'getReferralNudge'],
  ['post', '/referrals/log-share', 'logReferralShare'],
  // Endpoints named without payloads
  ['get', '/v1/contacts', 'listContacts'],
  ['post', '/v1/contacts', 'createContact'],
  ['patch', '/v1/contacts', 'updateContactByQuery'],
  ['delete', '/v1/contacts', 'deleteContact'],
  ['post', '/v1/contacts/import', 'importContacts'],
  ['get', '/v1/campaigns', 'listCampaigns'],
  ['post', '/v1/campaigns', 'createCampaign'],
  ['patch', '/v1/campaigns', 'updateCampaign'],
  ['delete', '/v1/campaigns', 'deleteCampaign'],
  ['post', '/v1/campaigns/{id}/send', 'sendCampaign'],
  ['get', '/v1/templates', 'listTemplates'],
  ['post', '/v1/templates', 'createTemplate'],
  ['post', '/v1/templates/render', 'renderTemplate'],
  ['get', '/v1/automations', 'listAutomations'],
  ['post', '/v1/automations', 'createAutomation'],
  ['patch', '/v1/automations', 'updateAutomation'],
  ['get', '/v1/domains', 'listDomains'],
  ['post', '/v1/domains', 'createDomain'],
  ['delete', '/v1/domains', 'deleteDomain'],
  ['get', '/v1/aliases', 'listAliases'],
  ['post', '/v1/aliases', 'createAlias'],
  ['patch', '/v1/aliases', 'updateAlias'],
  ['delete', '/v1/aliases', 'deleteAlias'],
  ['get', '/v1/dedicated-ips', 'listDedicatedIps'],
  ['post', '/v1/dedicated-ips', 'createDedicatedIp'],
  ['patch', '/v1/dedicated-ips', 'updateDedicatedIp'],
  ['delete', '/v1/dedicated-ips', 'deleteDedicatedIp'],
  ['get', '/v1/inbound', 'listInboundRoutes'],
  ['post', '/v1/inbound', 'createInboundRoute'],
  ['delete', '/v1/inbound', 'deleteInboundRoute'],
  ['get', '/v1/ab-tests', 'listAbTests'],
  ['post', '/v1/ab-tests', 'createAbTest'],
  ['post', '/v1/ab-tests/{id}/winner', 'selectAbTestWinner'],
  ['post', '/v1/ai/subject-lines', 'generateSubjectLines'],
  ['get', '/v1/analytics', 'getAnalytics'],
  ['post', '/v1/track/event', 'trackEvent'],
  ['post', '/v1/track/purchase', 'trackPurchase'],
  ['get', '/v1/sandbox', 'listSandboxMessages'],
  ['delete', '/v1/sandbox', 'clearSandbox'],
  ['get', '/v1/keys', 'listApiKeys'],
  ['post', '/v1/keys', 'createApiKey'],
  ['delete', '/v1/keys', 'revokeApiKey'],
  ['delete', '/api/v1/keys', 'revokeApiKeyFromDashboard'],
  ['get', '/v1/plan-limits', 'getPlanLimits'],
  ['get', '/billing/subscription', 'getSubscription'],
  ['post', '/billing/checkout', 'createCheckoutSession'],
  ['get', '/accounts', 'listAccounts'],
  ['post', '/accounts', 'createAccount'],
  ['patch', '/accounts', 'updateAccount'],
  ['delete', '/accounts', 'deleteAccount'],
];

/** Operations the document does not publish but the contract needs (designed, provisional). */
export const designedRoutes: ReadonlyArray<readonly [method: string, path: string, operationId: string]> = [
  ['post', '/api/oauth/authorize', 'decideOAuthConsent'],
  // Sign-in and sign-out (issue 12): the document says only that a verified SSO token creates a local session.
  ['get', '/api/auth/login', 'showLoginPage'],
  ['post', '/api/auth/login', 'logInAsUser'],
  ['post', '/api/auth/sso', 'exchangeSsoToken'],
  ['post', '/api/auth/logout', 'logOut'],
  // DECISIONS mail-5: static segment members are managed by hand, and the suppression list is readable.
  ['post', '/api/segments/{id}/members', 'addSegmentMembers'],
  ['delete', '/api/segments/{id}/members', 'removeSegmentMembers'],
  ['get', '/v1/suppressions', 'listSuppressions'],
  // DECISIONS mail-3: Form A endpoints are configured through session routes.
  ['get', '/api/webhooks', 'listDashboardWebhooks'],
  ['post', '/api/webhooks', 'createDashboardWebhook'],
  ['patch', '/api/webhooks/{id}', 'updateDashboardWebhook'],
  ['delete', '/api/webhooks/{id}', 'deleteDashboardWebhook'],
  ['post', '/api/webhooks/{id}/enable', 'enableDashboardWebhook'],
  // Issue 15: the open pixel and tracked links that email.opened and email.clicked come from.
  ['get', '/t/open/{token}', 'trackOpen'],
  ['get', '/t/click/{token}', 'trackClick'],
];

/** Error statuses the document names for an operation, beyond the ones every route of its family has. */
export const publishedErrorStatuses: Readonly<Record<string, readonly string[]>> = {
  registerOAuthClient: ['400'],
  sendWhatsAppMessage: ['400', '403', '422'],
  sendPushNotification: ['403', '404'],
  refreshSegment: ['422'],
  listSegmentMembers: ['403'],
  validateEmails: ['402', '403', '415'],
  addMonitoredDomain: ['400', '403', '409', '415'],
  claimReferralMilestone: ['400', '404', '409', '422'],
  createApiKey: ['403'],
};

/** Scopes an OAuth token may hold, per operation, where the document names them. */
export const publishedScopes: Readonly<Record<string, readonly string[]>> = {
  sendWhatsAppMessage: ['send'],
  sendPushNotification: ['send'],
  listSegmentMembers: ['read', 'segments', 'contacts'],
  validateEmails: ['validate', 'send'],
  getValidationBalance: ['validate', 'send'],
};

export const metadataScopes = ['read', 'write', 'send', 'send:transactional', 'send:marketing', 'contacts'];

export const formAEvents = ['contact.created', 'contact.updated', 'contact.unsubscribed', 'campaign.sent', 'campaign.completed', 'email.opened', 'email.clicked', 'email.bounced'];

export const formBEvents = [
  'email.sent',
  'email.delivered',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'email.complained',
  'email.unsubscribed',
  'campaign.sent',
  'campaign.completed',
  'contact.created',
  'contact.updated',
];

/** Event data fields the document publishes. */
export const publishedEventData: Readonly<Record<string, readonly string[]>> = {
  'formA:email.opened': ['message_id', 'email', 'campaign_id'],
  'formA:email.bounced': ['message_id', 'email', 'bounce_type'],
  'formB:email.delivered': ['messageId', 'to', 'subject', 'campaignId', 'deliveredAt'],
  'formB:email.opened': ['messageId', 'email', 'openedAt', 'userAgent', 'ip', 'machineOpen'],
  'formB:email.clicked': ['messageId', 'email', 'url', 'clickedAt'],
  'formB:email.bounced': ['messageId', 'email', 'bounceType', 'bounceCode', 'bounceMessage', 'bouncedAt'],
};

export const inboundFields = ['event', 'id', 'from', 'to', 'cc', 'subject', 'text', 'html', 'headers', 'attachments', 'spam_score', 'message_id', 'received_at'];

export const mailServerBKinds = ['MessageSent', 'MessageDelivered', 'MessageDelayed', 'MessageHeld', 'MessageBounced', 'MessageDeliveryFailed', 'MessageLinkClicked', 'DomainDNSError'];
