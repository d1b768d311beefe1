import { Controller, Get } from '@nestjs/common';

/** Readiness: answers once the service accepts requests (contract section 1). */
@Controller('health')
export class HealthController {
  @Get()
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }
}
