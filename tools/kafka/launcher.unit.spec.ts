import { kafkaVersion, parseJavaMajor } from './launcher';

describe('tools/kafka launcher', () => {
  it("reads Java's major version from `java -version`, old and new schemes", () => {
    expect(parseJavaMajor('openjdk version "17.0.15" 2025-04-15\nOpenJDK Runtime Environment')).toBe(17);
    expect(parseJavaMajor('openjdk version "25" 2025-09-16')).toBe(25);
    expect(parseJavaMajor('java version "1.8.0_392"')).toBe(8);
    expect(parseJavaMajor('bash: java: command not found')).toBeUndefined();
  });

  it('pins an Apache Kafka 4.x release in pom.xml', () => {
    expect(kafkaVersion()).toMatch(/^4\.\d+\.\d+$/);
  });
});
