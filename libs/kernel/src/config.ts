/** Reading the environment with a clear message for each bad value; every problem is reported at once. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

/**
 * A start failure an operator fixes (a busy DATA_DIR, an unreachable database): its message says what
 * and how, and is printed alone, without a stack.
 */
export class OperatorError extends Error {
  override readonly name: string = 'OperatorError';
}

export class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: NodeJS.ProcessEnv) {}

  string(name: string, fallback: string): string;
  string(name: string): string | undefined;
  string(name: string, fallback?: string): string | undefined {
    const raw = this.env[name];
    return raw === undefined || raw === '' ? fallback : raw;
  }

  int(name: string, fallback: number, { min, max }: { min: number; max: number }): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    this.problems.push(`${name} must be true or false, got "${raw}"`);
    return fallback;
  }

  url(name: string, fallback: string | undefined, protocols: string[]): string | undefined {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) throw new Error();
      return raw.replace(/\/+$/, '');
    } catch {
      this.problems.push(`${name} must be a ${protocols.join(' or ')} URL, got "${raw}"`);
      return fallback;
    }
  }

  json<T>(name: string, fallback: T, validate: (value: unknown) => string | undefined): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    try {
      const value: unknown = JSON.parse(raw);
      const problem = validate(value);
      if (problem) {
        this.problems.push(`${name}: ${problem}`);
        return fallback;
      }
      return value as T;
    } catch {
      this.problems.push(`${name} must be JSON`);
      return fallback;
    }
  }

  /** Throws one ConfigError listing every problem found so far. */
  done(): void {
    if (this.problems.length > 0) throw new ConfigError(this.problems);
  }
}
