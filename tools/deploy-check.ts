/**
 * `node tools/run.js tools/deploy-check.ts` (tools/compose-check.sh runs it): the monitoring files in
 * deploy/ agree with docker-compose.yml and with the metrics the code exports.
 *
 * - every `./…` bind mount of docker-compose.yml exists;
 * - Prometheus scrapes /metrics of every app service of the compose file (those built with APP), and nothing else;
 * - the Grafana dashboard parses, uses only metric families the service exports (or prom-client's
 *   process defaults), and shows every family the service exports.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { metricsRegistry, webhookDeliveriesDue, webhookOldestDueDeliveryAgeSeconds } from '@pay/observability';

const errors: string[] = [];
const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as { services: Record<string, { build?: { args?: { APP?: string } }; volumes?: string[] }> };

for (const [name, service] of Object.entries(compose.services)) {
  for (const volume of service.volumes ?? []) {
    const source = volume.split(':')[0]!;
    if (source.startsWith('./') && !existsSync(source)) errors.push(`service ${name} mounts ${source}, which does not exist`);
  }
}

const apps = Object.entries(compose.services).filter(([, service]) => service.build?.args?.APP).map(([name]) => name).sort();
const prometheus = parse(readFileSync('deploy/prometheus/prometheus.yml', 'utf8')) as { scrape_configs: { metrics_path?: string; static_configs: { targets: string[] }[] }[] };
const scraped = prometheus.scrape_configs.flatMap((job) => {
  if ((job.metrics_path ?? '/metrics') !== '/metrics') errors.push(`a scrape job reads ${job.metrics_path}, not /metrics`);
  return job.static_configs.flatMap((config) => config.targets.map((target) => target.split(':')[0]!));
});
if (scraped.sort().join() !== apps.join()) errors.push(`Prometheus scrapes ${scraped.join(', ')}; the compose file's apps are ${apps.join(', ')}`);

/** The series a family answers with: a histogram's _bucket, _sum and _count, a counter's own name. */
const families = new Set([...metricsRegistry.getMetricsAsArray(), webhookDeliveriesDue, webhookOldestDueDeliveryAgeSeconds].map((metric) => (metric as unknown as { name: string }).name));
const dashboard = JSON.parse(readFileSync('deploy/grafana/dashboards/payments-platform.json', 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
const used = new Set<string>();
for (const panel of dashboard.panels) {
  for (const { expr } of panel.targets ?? []) {
    for (const [name] of expr.matchAll(/\b[a-z_]+_(?:total|seconds(?:_bucket|_sum|_count)?|bytes|due)\b/g)) {
      const family = name.replace(/_(bucket|sum|count)$/, '');
      if (families.has(family)) used.add(family);
      else if (!/^(process|nodejs)_/.test(family)) errors.push(`the dashboard queries ${name}, which the service does not export`);
    }
  }
}
for (const family of families) if (!used.has(family)) errors.push(`the dashboard shows nothing of ${family}`);

for (const error of errors) console.error(`deploy-check: ${error}`);
console.log(`deploy-check: ${apps.length} apps scraped, ${used.size} metric families on the dashboard, ${errors.length} problem(s)`);
process.exit(errors.length > 0 ? 1 : 0);
