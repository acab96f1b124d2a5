// io-ts codecs for the config file as a person writes it: every field optional (defaults fill
// the gaps), unknown fields rejected at every level (core's strict(), from the codecs' shape) so
// a typo like "persistant" is an error, not a silent default.
import * as t from 'io-ts';
import { strict } from '@noderepair/core/codec';

const seconds = t.Int;

export const RawHttpCheck = t.type({ type: t.literal('http'), url: t.string }, 'HttpCheck');
export const RawCrictlCheck = t.type({ type: t.literal('crictl'), endpoint: t.string }, 'CrictlCheck');
export const RawExecCheck = t.type({ type: t.literal('exec'), command: t.array(t.string) }, 'ExecCheck');
export const RawHealthCheck = t.union([RawHttpCheck, RawCrictlCheck, RawExecCheck], 'HealthCheck');

const monitorSettings = {
  intervalSeconds: seconds,
  timeoutSeconds: seconds,
  failureThreshold: t.Int,
  bootGraceSeconds: seconds,
  killGraceSeconds: seconds,
  restartBudget: t.partial({ maxRestarts: t.Int, windowSeconds: seconds }, 'RestartBudget'),
  backoff: t.partial({ initialSeconds: seconds, maxSeconds: seconds }, 'Backoff'),
  restartSec: seconds,
};

export const RawMonitorSettings = t.partial(monitorSettings, 'MonitorSettings');

export const RawHealthMonitor = t.intersection(
  [
    t.type({ name: t.string, unit: t.string, check: RawHealthCheck }),
    t.partial(monitorSettings, 'HealthMonitor'),
  ],
  'HealthMonitor',
);

/** The whole file; strict, so nested levels (monitors, their checks) reject unknown keys too. */
export const RawConfig = strict(t.partial(
  {
    volatile: t.array(t.string),
    persistent: t.array(t.string),
    tmpfsSize: t.string,
    stateDir: t.string,
    containerRuntime: t.partial({ unit: t.string, endpoint: t.string }, 'ContainerRuntime'),
    /** Applied to every monitor (listed or default) before its own settings. */
    monitorDefaults: RawMonitorSettings,
    /** Replaces the default kubelet + container-runtime monitors; [] disables monitoring. */
    healthMonitors: t.array(RawHealthMonitor),
  },
  'OverlayConfig',
));

/**
 * The config file as written, before defaults and validation (resolveConfig turns it into an
 * OverlayConfig).
 */
export type RawConfig = t.TypeOf<typeof RawConfig>;
export type RawHealthMonitor = t.TypeOf<typeof RawHealthMonitor>;
export type RawMonitorSettings = t.TypeOf<typeof RawMonitorSettings>;
