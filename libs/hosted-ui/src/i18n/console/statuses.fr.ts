/**
 * Statuses and timeline events as the console says them (`console.status.<object>.<status>`,
 * `console.event.<type>`), where the hosted pages' `status.<object>.<status>` has no word or speaks
 * to the payer; the reference for the other languages.
 */
export const statusesFr = {
  'console.status.payment.pending': 'En attente de l’autorisation du client',
  'console.status.refund.pending': 'En cours',
  'console.status.refund.succeeded': 'Remboursé',
  'console.status.refund.failed': 'Échoué',
  'console.status.payout.pending': 'En préparation',
  'console.status.payout.in_transit': 'Envoyé à la banque',
  'console.status.payout.paid': 'Versé',
  'console.status.payout.failed': 'Échoué',
  'console.status.payout.canceled': 'Annulé',
  'console.status.delivery.pending': 'En attente d’envoi',
  'console.status.delivery.succeeded': 'Livré',
  'console.status.delivery.failed': 'Échoué',
  'console.status.delivery.canceled': 'Annulé',
  'console.status.webhook_endpoint.enabled': 'Actif',
  'console.status.webhook_endpoint.disabled': 'Désactivé',
  'console.status.api_key.active': 'Active',
  'console.status.api_key.expired': 'Expirée',
  'console.status.api_key.revoked': 'Révoquée',
  'console.status.beneficiary.authorized': 'Autorisé',
  'console.status.beneficiary.revoked': 'Révoqué',
  'console.event.collection.collected': 'Ramassée',
  'console.event.collection.deposit_overdue': 'Dépôt en retard',
  'console.event.settlement.completed': 'Règlement effectué',
  'console.event.webhook_endpoint.disabled': 'Point de terminaison désactivé',
};

export type StatusKey = keyof typeof statusesFr;
