/**
 * Statuses, timeline events and journal entries' kinds as the console says them
 * (`console.status.<object>.<status>`, `console.event.<type>`, `console.entry_kind.<kind>`), where
 * the hosted pages' `status.<object>.<status>` has no word or speaks to the payer; the reference for
 * the other languages.
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
  'console.entry_kind.payment': 'Paiement',
  'console.entry_kind.cash_payment': 'Paiement en espèces',
  'console.entry_kind.supplier_payment': 'Paiement fournisseur',
  'console.entry_kind.settlement': 'Règlement',
  'console.entry_kind.cash_handover': 'Remise d’espèces',
  'console.entry_kind.cash_deposit': 'Dépôt d’espèces',
  'console.entry_kind.cash_write_off': 'Espèces passées en perte',
  'console.entry_kind.refund': 'Remboursement',
  'console.entry_kind.payout': 'Virement sortant',
  'console.entry_kind.payout_reversal': 'Virement sortant annulé',
  'console.entry_kind.payout_paid': 'Virement sortant versé',
  'console.entry_kind.topup': 'Approvisionnement',
};

export type StatusKey = keyof typeof statusesFr;
