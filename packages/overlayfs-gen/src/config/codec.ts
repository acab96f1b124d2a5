// io-ts codecs for the config file as a person writes it: every field optional (defaults fill
// the gaps), unknown fields rejected so a typo like "persistant" is an error, not a silent default.
import * as t from 'io-ts';
import { either } from 'fp-ts';

/** An object codec whose props are all optional and which rejects keys it does not know. */
export function closedPartial<P extends t.Props>(props: P, name: string): t.Type<t.TypeOfPartialProps<P>, unknown, unknown> {
  const inner = t.partial(props);
  const known = new Set(Object.keys(props));
  return new t.Type<t.TypeOfPartialProps<P>, unknown, unknown>(
    name,
    (u): u is t.TypeOfPartialProps<P> => inner.is(u),
    (u, c) => {
      if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, c);
      const unknownKeys = Object.keys(u).filter((k) => !known.has(k));
      if (unknownKeys.length > 0) {
        return t.failures(
          unknownKeys.map((k) => ({
            value: (u as Record<string, unknown>)[k],
            context: [...c, { key: k, type: t.never, actual: (u as Record<string, unknown>)[k] }],
            message: `unknown field "${k}" (known: ${[...known].join(', ')})`,
          })),
        );
      }
      return either.map((v: t.TypeOfPartialProps<P>) => v)(inner.validate(u, c));
    },
    (a) => a,
  );
}

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
  restartBudget: closedPartial({ maxRestarts: t.Int, windowSeconds: seconds }, 'RestartBudget'),
  backoff: closedPartial({ initialSeconds: seconds, maxSeconds: seconds }, 'Backoff'),
  restartSec: seconds,
};

export const RawMonitorSettings = closedPartial(monitorSettings, 'MonitorSettings');

export const RawHealthMonitor = t.intersection(
  [
    t.type({ name: t.string, unit: t.string, check: RawHealthCheck }),
    closedPartial({ name: t.string, unit: t.string, check: t.unknown, ...monitorSettings }, 'HealthMonitor'),
  ],
  'HealthMonitor',
);

export const RawConfig = closedPartial(
  {
    volatile: t.array(t.string),
    persistent: t.array(t.string),
    tmpfsSize: t.string,
    stateDir: t.string,
    containerRuntime: closedPartial({ unit: t.string, endpoint: t.string }, 'ContainerRuntime'),
    /** Applied to every monitor (listed or default) before its own settings. */
    monitorDefaults: RawMonitorSettings,
    /** Replaces the default kubelet + container-runtime monitors; [] disables monitoring. */
    healthMonitors: t.array(RawHealthMonitor),
  },
  'OverlayConfig',
);

export type RawConfig = t.TypeOf<typeof RawConfig>;
export type RawHealthMonitor = t.TypeOf<typeof RawHealthMonitor>;
export type RawMonitorSettings = t.TypeOf<typeof RawMonitorSettings>;
