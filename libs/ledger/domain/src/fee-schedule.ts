import { CURRENCIES, type Currency, FIXED_FEE_MAX_MINOR, type FeeRule, isCurrency } from '@pay/kernel';
import { type FeeUseCase } from '@pay/contracts';

/** The fee rule of every use case in every currency. */
export type FeeSchedule = { readonly [U in FeeUseCase]: { readonly [C in Currency]: FeeRule } };

export const FEE_USE_CASES = ['payment', 'cash_payment', 'supplier_payment', 'settlement'] as const satisfies readonly FeeUseCase[];

const sameInEveryCurrency = (rule: FeeRule): { [C in Currency]: FeeRule } =>
  Object.fromEntries(CURRENCIES.map((currency) => [currency, rule])) as { [C in Currency]: FeeRule };

export const DEFAULT_FEE_SCHEDULE: FeeSchedule = {
  payment: sameInEveryCurrency({ basisPoints: 150, fixedMinor: 0 }),
  cash_payment: sameInEveryCurrency({ basisPoints: 200, fixedMinor: 0 }),
  supplier_payment: sameInEveryCurrency({ basisPoints: 100, fixedMinor: 0 }),
  settlement: sameInEveryCurrency({ basisPoints: 250, fixedMinor: 0 }),
};

const isFeeUseCase = (value: string): value is FeeUseCase => (FEE_USE_CASES as readonly string[]).includes(value);
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads the FEE_SCHEDULE override (parsed JSON), e.g. `{"payment":{"DZD":{"basisPoints":120,"fixedMinor":500}}}`,
 * over `base`. Returns the merged schedule, or a human-readable list of every problem found.
 */
export const parseFeeSchedule = (value: unknown, base: FeeSchedule = DEFAULT_FEE_SCHEDULE): FeeSchedule | string => {
  if (!isPlainObject(value)) return 'must be an object keyed by use case';
  const problems: string[] = [];
  const merged = { ...base } as { [U in FeeUseCase]: { [C in Currency]: FeeRule } };
  for (const [useCase, byCurrency] of Object.entries(value)) {
    if (!isFeeUseCase(useCase)) {
      problems.push(`unknown use case "${useCase}" (expected ${FEE_USE_CASES.join(', ')})`);
      continue;
    }
    if (!isPlainObject(byCurrency)) {
      problems.push(`${useCase} must be an object keyed by currency`);
      continue;
    }
    merged[useCase] = { ...base[useCase] };
    for (const [currency, rule] of Object.entries(byCurrency)) {
      const at = `${useCase}.${currency}`;
      if (!isCurrency(currency)) problems.push(`unknown currency "${currency}" in ${useCase}`);
      else {
        const problem = feeRuleProblem(rule);
        if (problem) problems.push(`${at}: ${problem}`);
        else merged[useCase][currency] = rule as FeeRule;
      }
    }
  }
  return problems.length > 0 ? problems.join('; ') : merged;
};

const feeRuleProblem = (rule: unknown): string | undefined => {
  if (!isPlainObject(rule)) return 'must be {"basisPoints", "fixedMinor"}';
  const unknownKeys = Object.keys(rule).filter((key) => key !== 'basisPoints' && key !== 'fixedMinor');
  if (unknownKeys.length > 0) return `unknown field ${unknownKeys.map((k) => `"${k}"`).join(', ')}`;
  const { basisPoints, fixedMinor } = rule;
  if (!Number.isInteger(basisPoints) || (basisPoints as number) < 0 || (basisPoints as number) > 10_000) {
    return `basisPoints must be an integer from 0 to 10000, got ${JSON.stringify(basisPoints)}`;
  }
  if (!Number.isInteger(fixedMinor) || (fixedMinor as number) < 0 || (fixedMinor as number) > FIXED_FEE_MAX_MINOR) {
    return `fixedMinor must be an integer from 0 to ${FIXED_FEE_MAX_MINOR}, got ${JSON.stringify(fixedMinor)}`;
  }
  return undefined;
};
