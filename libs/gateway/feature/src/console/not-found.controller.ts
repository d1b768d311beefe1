import { Controller, Get } from '@nestjs/common';
import { notFound } from '@pay/contracts';
import { ConsoleRole } from './console-role';

/**
 * Any other GET under /console (a mistyped page, a trailing slash): the console's not-found page,
 * after the sign-in like every page, not the API's JSON 404. Every named route matches first.
 */
@Controller('console')
@ConsoleRole('admin', 'finance')
export class ConsoleNotFoundController {
  @Get('*')
  page(): never {
    throw notFound('page', 'console');
  }
}
