import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { AuditEventResource, listOf, type ListResource } from '@pay/contracts';
import { ID_LENGTH_MAX } from '@pay/kernel';
import { ApiKeyGuard, Integrator } from '../auth/api-key.guard';
import { FinanceGuard } from '../auth/admin.guard';
import { FULL_ACCESS, RequiresScope } from '../auth/scopes';
import { AuditLog } from '../directory/audit-log';
import type { ApiKeyRecord } from '../directory/directory.repository';
import { CREATED_RANGE, LIST_QUERY, QueryParams, Returns } from '../openapi/describe';
import { parseListQuery } from './list-query';

const AUDIT_ID = new RegExp(`^aud_[0-9A-Za-z]{1,${ID_LENGTH_MAX}}$`);

/** The integrator's audit trail (contract section 16), newest first; only a `["*"]` key reads it. */
@Controller('v1/audit_events')
@UseGuards(ApiKeyGuard)
@RequiresScope(FULL_ACCESS)
export class AuditEventsController {
  constructor(private readonly audit: AuditLog) {}

  @Returns(listOf(AuditEventResource), 'List audit events', { description: 'The integrator’s audit trail, newest first: every change made through the API (reads are not recorded). Only a `["*"]` key may read it.' })
  @QueryParams('action', ...CREATED_RANGE, ...LIST_QUERY)
  @Get()
  async list(@Integrator() { integratorId }: ApiKeyRecord, @Query() query: unknown): Promise<ListResource<AuditEventResource>> {
    const parsed = parseListQuery(query, ['action'] as const, { createdRange: true, idPattern: AUDIT_ID });
    const { data, hasMore } = await this.audit.list({ integrator: integratorId, ...parsed, ...parsed.filters });
    return { object: 'list', data, has_more: hasMore };
  }
}

/** Every integrator's audit trail, for the back office and finance (the admin key or a finance key). */
@Controller('admin/v1/audit_events')
@UseGuards(FinanceGuard)
export class AdminAuditEventsController {
  constructor(private readonly audit: AuditLog) {}

  @Returns(listOf(AuditEventResource), 'List every audit event', { operationId: 'admin.auditEvents.list', description: 'Every integrator’s audit trail (and the admin’s), newest first.' })
  @QueryParams('integrator', 'action', ...CREATED_RANGE, ...LIST_QUERY)
  @Get()
  async list(@Query() query: unknown): Promise<ListResource<AuditEventResource>> {
    const parsed = parseListQuery(query, ['integrator', 'action'] as const, { createdRange: true, idPattern: AUDIT_ID });
    const { data, hasMore } = await this.audit.list({ ...parsed, ...parsed.filters });
    return { object: 'list', data, has_more: hasMore };
  }
}
