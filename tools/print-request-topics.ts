import { REPLY_TOPICS, REQUEST_TOPIC_OWNER } from '@pay/contracts';

/**
 * Prints the request topics, one line per owning app, as docker-compose.yml's kafka-init lists them:
 * `node tools/run.js tools/print-request-topics.ts` (tools/compose-check.sh compares the two). With
 * `--replies`, the reply topics (one per app) on one line, as kafka-init's REPLY_TOPICS.
 */
if (process.argv.includes('--replies')) {
  process.stdout.write(`${REPLY_TOPICS.join(' ')}\n`);
} else {
  const byApp = new Map<string, string[]>();
  for (const [topic, app] of Object.entries(REQUEST_TOPIC_OWNER)) byApp.set(app, [...(byApp.get(app) ?? []), topic]);
  for (const topics of byApp.values()) process.stdout.write(`${topics.join(' ')}\n`);
}
