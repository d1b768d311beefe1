import { EnvReader } from '@pay/kernel';
import { databaseUrlOf, readHostConfig } from './host-config';

const read = (env: Record<string, string>) => {
  const reader = new EnvReader(env);
  return { config: readHostConfig(reader), problems: reader.problems };
};

describe('a database per service', () => {
  it('each app reads its own <APP>_DATABASE_URL, falling back to DATABASE_URL', () => {
    const { config, problems } = read({
      DATABASE_URL: 'postgres://u:p@db:5432/shared',
      SUPPLIER_PAYMENTS_DATABASE_URL: 'postgres://sp:p@db:5432/supplier',
    });
    expect(problems).toEqual([]);
    expect(databaseUrlOf(config, 'supplier-payments')).toEqual({ url: 'postgres://sp:p@db:5432/supplier', variable: 'SUPPLIER_PAYMENTS_DATABASE_URL' });
    expect(databaseUrlOf(config, 'payments')).toEqual({ url: 'postgres://u:p@db:5432/shared', variable: 'DATABASE_URL' });
    expect(databaseUrlOf(config, 'all-in-one').variable).toBe('DATABASE_URL');
  });

  it('a malformed per-app URL is a configuration problem naming the variable', () => {
    expect(read({ LEDGER_DATABASE_URL: 'mysql://x' }).problems).toEqual(['LEDGER_DATABASE_URL must be a postgres: or postgresql: URL, got "mysql://x"']);
  });
});

describe('INSTANCE_INDEX', () => {
  it('defaults to 0; within the reply partitions it is taken', () => {
    expect(read({}).config.instanceIndex).toBe(0);
    expect(read({ INSTANCE_INDEX: '3' }).config.instanceIndex).toBe(3);
  });

  it('past the reply partitions the process refuses to start, saying why', () => {
    const { problems } = read({ INSTANCE_INDEX: '4' });
    expect(problems[0]).toMatch(/INSTANCE_INDEX must be an integer from 0 to 3/);
    expect(problems[1]).toMatch(/at most 4 instances \(one partition of each reply topic per instance/);
  });
});

describe('PORT_FILE', () => {
  it('is unset by default, and an absolute path when set (a relative one from the working directory)', () => {
    expect(read({}).config.portFile).toBeUndefined();
    expect(read({ PORT_FILE: '' }).config.portFile).toBeUndefined();
    expect(read({ PORT_FILE: '/run/pay/port' }).config.portFile).toBe('/run/pay/port');
    expect(read({ PORT_FILE: 'gateway.port' }).config.portFile).toBe(`${process.cwd()}/gateway.port`);
  });
});

describe('KAFKA_TOPIC_PREFIX', () => {
  it('is read as given (several topologies on one cluster), and absent by default', () => {
    expect(read({}).config.kafkaTopicPrefix).toBeUndefined();
    expect(read({ KAFKA_TOPIC_PREFIX: 'staging.' })).toMatchObject({ config: { kafkaTopicPrefix: 'staging.' }, problems: [] });
  });

  it('refuses what Kafka would refuse in a topic name', () => {
    expect(read({ KAFKA_TOPIC_PREFIX: 'a b/' }).problems).toEqual([expect.stringMatching(/^KAFKA_TOPIC_PREFIX must be 1 to 100 of/)]);
    expect(read({ KAFKA_TOPIC_PREFIX: 'x'.repeat(101) }).problems).toHaveLength(1);
  });
});

describe('TRUSTED_PROXIES', () => {
  it('none by default; addresses and CIDR blocks, IPv4 and IPv6, as given', () => {
    expect(read({}).config.trustedProxies).toEqual([]);
    const { config, problems } = read({ TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.7,fd00::/8 , ::1' });
    expect(problems).toEqual([]);
    expect(config.trustedProxies).toEqual(['10.0.0.0/8', '192.168.1.7', 'fd00::/8', '::1']);
  });

  it('anything else is a configuration problem naming each bad entry (a name, a prefix too long, an empty entry)', () => {
    for (const [value, bad] of [
      ['load-balancer', '"load-balancer"'],
      ['10.0.0.0/33', '"10.0.0.0/33"'],
      ['fd00::/129', '"fd00::/129"'],
      ['10.0.0.1,,10.0.0.2', '""'],
      ['10.0.0.0/8/1', '"10.0.0.0/8/1"'],
      ['10.0.0.256', '"10.0.0.256"'],
      ['10.0.0.0/', '"10.0.0.0/"'],
    ]) {
      const { config, problems } = read({ TRUSTED_PROXIES: value! });
      expect({ value, problems }).toEqual({ value, problems: [`TRUSTED_PROXIES must be IP addresses or CIDR blocks separated by commas (10.0.0.0/8, 192.168.1.7), got ${bad}`] });
      expect(config.trustedProxies).toEqual([]);
    }
  });
});
