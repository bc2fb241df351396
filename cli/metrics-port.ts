/**
 * `--metrics-port`, the same on every command that drives agents (`neo flow run`, `neo flow
 * resume`, `neo persona run`): the option's declaration and the process's metric sinks it opens
 * — the attached server's, the Prometheus endpoint on 127.0.0.1, OTLP when configured.
 */
import { Option } from 'commander';
import type { MetricsSink, ProcessMetrics } from '../engine/observability/index.js';
import { defined } from '../engine/util/defined.js';
import { UsageError } from '../engine/util/errors.js';
import { writeLine, type CommandIO } from './io.js';

/** The option, for a command's registration (`.addOption(metricsPortOption('the run'))`). */
export function metricsPortOption(lasts: string): Option {
  return new Option(
    '--metrics-port <port>',
    `serve Prometheus metrics on 127.0.0.1:<port>/metrics while ${lasts} lasts (0: any free port)`,
  );
}

/** The option's value, checked before the command does anything else. */
export function metricsPort(value: string | undefined): number | undefined {
  const port = value === undefined ? undefined : Number(value);
  if (port !== undefined && !(value!.trim() !== '' && Number.isInteger(port) && port >= 0 && port < 65536))
    throw new UsageError('CLI_BAD_PORT', `--metrics-port ${value} is not a port number`, {
      hint: 'give 0 (any free port) up to 65535',
    });
  return port;
}

/** The command's metric sinks; the endpoint's URL goes to stderr. Close it when the command ends. */
export async function openMetrics(
  io: CommandIO,
  metricsPort: number | undefined,
  forward: MetricsSink | undefined,
): Promise<ProcessMetrics> {
  // Loaded when a command runs, not when the program registers its options.
  const { processMetrics } = await import('../engine/observability/index.js');
  const metrics = await processMetrics({ env: io.env, ...defined({ metricsPort, forward }) });
  if (metrics.url !== undefined) writeLine(io.stderr, `neo: metrics on ${metrics.url}`);
  return metrics;
}
