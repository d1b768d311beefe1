import { IsDefined, IsIn, IsOptional, IsString } from 'class-validator';
import { ServiceError } from '@pay/contracts';
import { validateBody } from './validation';

class Body {
  @IsDefined() @IsString() name!: string;
  @IsOptional() @IsString() @IsIn(['enabled', 'disabled']) status?: 'enabled' | 'disabled';
}

const errorOf = (body: unknown) => {
  try {
    validateBody(Body, body);
  } catch (error) {
    if (error instanceof ServiceError) return { code: error.code, message: error.message, param: error.param };
    throw error;
  }
  throw new Error('validateBody accepted the body');
};

describe('validateBody: a parameter sent as JSON null counts as missing (contract section 2)', () => {
  it('an optional parameter sent as null is absent from the validated body', () => {
    const input = validateBody(Body, { name: 'Shop', status: null });
    expect('status' in input).toBe(false);
    expect(input.status).toBeUndefined();
  });

  it('a required parameter sent as null is missing: 400 invalid_request "is required"', () => {
    expect(errorOf({ name: null })).toEqual({ code: 'invalid_request', message: 'name is required', param: 'name' });
  });

  it('an unknown parameter sent as null is still unknown', () => {
    expect(errorOf({ name: 'Shop', colour: null })).toEqual({ code: 'invalid_request', message: 'unknown parameter: colour', param: 'colour' });
  });

  it('a value that is present is kept and checked as before', () => {
    expect(validateBody(Body, { name: 'Shop', status: 'disabled' })).toMatchObject({ name: 'Shop', status: 'disabled' });
    expect(errorOf({ name: 'Shop', status: 'paused' })).toMatchObject({ code: 'invalid_request', param: 'status' });
  });
});
