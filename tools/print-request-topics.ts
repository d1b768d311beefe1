import { KAFKA_REQUEST_TOPICS, REPLY_TOPICS } from '@pay/contracts';

/**
 * Prints the Kafka request topics (one per serving app) on one line, as docker-compose.yml's kafka-init
 * lists them in REQUEST_TOPICS: `node tools/run.js tools/print-request-topics.ts` (tools/compose-check.sh
 * compares the two). With `--replies`, the reply topics (one per app), as kafka-init's REPLY_TOPICS.
 */
process.stdout.write(`${(process.argv.includes('--replies') ? REPLY_TOPICS : KAFKA_REQUEST_TOPICS).join(' ')}\n`);
