// Semantic validation of a decoded config: fills defaults, then applies every rule and
// collects all errors (a person fixing a config wants the full list, not one at a time).
import { either } from 'fp-ts';
import type { Either } from 'fp-ts/Either';
import { formatConfigError, type ConfigError } from './errors.js';
import type { RawConfig, RawMonitorSettings } from './codec.js';
import type { Backoff, ContainerRuntime, HealthCheck, HealthMonitor, OverlayConfig, RestartBudget } from './types.js';
import {
  DEFAULT_CONTAINER_RUNTIME,
  DEFAULT_MONITOR_SETTINGS,
  DEFAULT_PERSISTENT,
  DEFAULT_STATE_DIR,
  DEFAULT_TMPFS_SIZE,
  DEFAULT_VOLATILE,
  defaultHealthMonitors,
} from './defaults.js';
import { checkNodePath, checkPathSyntax, checkStateDir, isWithin } from './paths.js';

const UNIT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,200}\.service$/;
const MONITOR_NAME = /^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/;
const TMPFS_SIZE = /^(?:[1-9][0-9]{0,12}[kKmMgG]?|(?:[1-9][0-9]?|100)%)$/;
const HTTP_URL = /^https?:\/\/(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?(?:\/[A-Za-z0-9._~/-]*)?$/;
const TCP_ENDPOINT = /^tcp:\/\/[A-Za-z0-9.-]+:[0-9]{1,5}$/;
/** Printable ASCII without quotes, backslash, $ and backtick: safe inside single quotes and logs. */
const SAFE_ARG = /^[A-Za-z0-9 ._@%+=:,/~^#!?*&;|<>(){}[\]-]*$/;

type Collector = ConfigError[];

function pathRules(
  errors: Collector,
  list: readonly string[],
  field: string,
): void {
  list.forEach((p, i) => {
    const v = checkNodePath(p);
    if (v) errors.push({ field: `${field}[${i}]`, value: p, rule: v.rule, message: v.message });
  });
}

interface Indexed {
  readonly p: string;
  readonly i: number;
}

/** Said of an entry of DEFAULT_PERSISTENT: the user never wrote it, so name where it came from. */
const fromDefaults = (subject: string): string =>
  `${subject} is from the default persistent list, used because the config sets no persistent: set persistent explicitly`;

/** kubeadm's kubelet state (config.yaml, kubeadm-flags.env, pki); see DEFAULT_PERSISTENT. */
const KUBELET_STATE = '/var/lib/kubelet';

/**
 * Duplicates and containment. Takes only well-formed paths, with their original index.
 * persistentDefaulted: the persistent list is DEFAULT_PERSISTENT, which errors about it must say.
 */
function relationRules(errors: Collector, volatile: readonly Indexed[], persistent: readonly Indexed[], persistentDefaulted: boolean): void {
  const seen = new Map<string, string>();
  const note = (p: string, field: string, defaulted: boolean) => {
    const first = seen.get(p);
    if (first !== undefined) {
      errors.push({ field, value: p, rule: 'duplicate', message: `is listed twice (first as ${first})${defaulted ? `; ${fromDefaults('this entry')}` : ''}` });
    } else seen.set(p, field);
  };
  volatile.forEach(({ p, i }) => note(p, `volatile[${i}]`, false));
  persistent.forEach(({ p, i }) => note(p, `persistent[${i}]`, persistentDefaulted));

  volatile.forEach(({ p: v, i }) => {
    const outerP = persistent.find(({ p }) => p !== v && isWithin(v, p));
    if (outerP !== undefined) {
      errors.push({
        field: `volatile[${i}]`,
        value: v,
        rule: 'volatile-inside-persistent',
        message: `is inside persistent path ${outerP.p}: it would be bound back to disk and never be volatile${persistentDefaulted ? `; ${fromDefaults(outerP.p)}` : ''}`,
      });
    }
    const outerV = volatile.find(({ p: o }) => o !== v && isWithin(v, o));
    if (outerV !== undefined) {
      errors.push({
        field: `volatile[${i}]`,
        value: v,
        rule: 'volatile-inside-volatile',
        message: `is inside volatile directory ${outerV.p}, which already makes it volatile`,
      });
    }
  });
  persistent.forEach(({ p, i }) => {
    const outer = persistent.find(({ p: o }) => o !== p && isWithin(p, o));
    if (outer !== undefined) {
      errors.push({
        field: `persistent[${i}]`,
        value: p,
        rule: 'persistent-inside-persistent',
        message: `is inside persistent path ${outer.p}, which already keeps it`,
      });
    }
  });
}

/**
 * Legal but probably not meant: an overlaid kubelet state directory, a persistent path that no
 * volatile directory covers (it is on disk anyway). Not for the entries of DEFAULT_PERSISTENT,
 * written or defaulted: they are kept outside the volatile set on purpose (for a later volatile /var).
 */
function warningRules(volatile: readonly Indexed[], persistent: readonly Indexed[], persistentDefaulted: boolean): ConfigError[] {
  const warnings: ConfigError[] = [];
  const kubeletKept = persistent.some(({ p }) => isWithin(KUBELET_STATE, p));
  volatile.forEach(({ p, i }) => {
    if (!kubeletKept && (isWithin(KUBELET_STATE, p) || isWithin(p, KUBELET_STATE))) {
      warnings.push({
        field: `volatile[${i}]`,
        value: p,
        rule: 'kubelet-state-volatile',
        message: `overlays ${KUBELET_STATE}, so the kubelet's state (kubeadm's config.yaml, kubeadm-flags.env, pki) is lost at every boot; add ${KUBELET_STATE} to persistent unless that is what you want`,
      });
    }
  });
  if (!persistentDefaulted) {
    persistent.forEach(({ p, i }) => {
      if (!DEFAULT_PERSISTENT.includes(p) && !volatile.some(({ p: v }) => isWithin(p, v))) {
        warnings.push({
          field: `persistent[${i}]`,
          value: p,
          rule: 'persistent-outside-volatile',
          message: 'is under no volatile directory, so it is on disk anyway and this entry does nothing',
        });
      }
    });
  }
  return warnings;
}

function intInRange(errors: Collector, field: string, n: number, min: number, max: number): void {
  if (!Number.isInteger(n) || n < min || n > max) {
    errors.push({ field, value: String(n), rule: 'range', message: `must be an integer from ${min} to ${max}` });
  }
}

function checkEndpoint(errors: Collector, field: string, endpoint: string): void {
  if (endpoint.startsWith('unix://')) {
    const path = endpoint.slice('unix://'.length);
    const v = checkPathSyntax(path);
    if (v) errors.push({ field, value: endpoint, rule: `endpoint-${v.rule}`, message: `socket path ${v.message}` });
    return;
  }
  if (!TCP_ENDPOINT.test(endpoint)) {
    errors.push({ field, value: endpoint, rule: 'endpoint', message: 'must be unix:///absolute/path.sock or tcp://host:port' });
  }
}

function checkCheck(errors: Collector, field: string, check: HealthCheck): void {
  switch (check.type) {
    case 'http':
      if (!HTTP_URL.test(check.url)) {
        errors.push({
          field: `${field}.url`,
          value: check.url,
          rule: 'http-url',
          message: 'must be http(s)://host[:port][/path] with a plain path (no query, no quotes, no spaces)',
        });
      }
      return;
    case 'crictl':
      checkEndpoint(errors, `${field}.endpoint`, check.endpoint);
      return;
    case 'exec': {
      const [program, ...args] = check.command;
      if (program === undefined) {
        errors.push({ field: `${field}.command`, rule: 'non-empty', message: 'must list the program and its arguments' });
        return;
      }
      const v = checkPathSyntax(program);
      if (v) errors.push({ field: `${field}.command[0]`, value: program, rule: v.rule, message: `program ${v.message}` });
      args.forEach((a, i) => {
        if (!SAFE_ARG.test(a) || a.length > 1024) {
          errors.push({
            field: `${field}.command[${i + 1}]`,
            value: a,
            rule: 'safe-characters',
            message: 'may only contain printable ASCII without quotes, backslash, $ or backtick (at most 1024 characters)',
          });
        }
      });
      return;
    }
  }
}

function checkUnit(errors: Collector, field: string, unit: string): void {
  if (!UNIT_NAME.test(unit)) {
    errors.push({ field, value: unit, rule: 'unit-name', message: 'must be a systemd service name like kubelet.service (letters, digits, _ . @ -)' });
  } else if (unit.endsWith('@.service')) {
    errors.push({ field, value: unit, rule: 'unit-name', message: 'is a template; name the instance that runs, e.g. foo@bar.service' });
  }
}

/** A monitor as listed (or defaulted): identity fixed, settings possibly missing. */
type MonitorInput = Pick<HealthMonitor, 'name' | 'unit' | 'check'> &
  Partial<Omit<HealthMonitor, 'name' | 'unit' | 'check' | 'restartBudget' | 'backoff'>> & {
    readonly restartBudget?: Partial<RestartBudget>;
    readonly backoff?: Partial<Backoff>;
  };

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function resolveMonitor(m: MonitorInput, shared: RawMonitorSettings): HealthMonitor {
  const d = DEFAULT_MONITOR_SETTINGS;
  const pick = <K extends keyof RawMonitorSettings>(k: K) => m[k] ?? shared[k];
  return {
    name: m.name,
    unit: m.unit,
    check: m.check,
    intervalSeconds: pick('intervalSeconds') ?? d.intervalSeconds,
    timeoutSeconds: pick('timeoutSeconds') ?? d.timeoutSeconds,
    failureThreshold: pick('failureThreshold') ?? d.failureThreshold,
    bootGraceSeconds: pick('bootGraceSeconds') ?? d.bootGraceSeconds,
    killGraceSeconds: pick('killGraceSeconds') ?? d.killGraceSeconds,
    restartBudget: { ...d.restartBudget, ...shared.restartBudget, ...m.restartBudget },
    backoff: { ...d.backoff, ...shared.backoff, ...m.backoff },
    restartSec: pick('restartSec') ?? d.restartSec,
  };
}

function monitorRules(errors: Collector, monitors: readonly HealthMonitor[]): void {
  const names = new Map<string, number>();
  const units = new Map<string, number>();
  monitors.forEach((m, i) => {
    const f = `healthMonitors[${i}]`;
    if (!MONITOR_NAME.test(m.name)) {
      errors.push({ field: `${f}.name`, value: m.name, rule: 'monitor-name', message: 'must be 1-40 lowercase letters, digits or -, starting and ending with a letter or digit' });
    }
    const dupName = names.get(m.name);
    if (dupName !== undefined) {
      errors.push({ field: `${f}.name`, value: m.name, rule: 'duplicate', message: `is also the name of healthMonitors[${dupName}]` });
    } else names.set(m.name, i);
    checkUnit(errors, `${f}.unit`, m.unit);
    const dupUnit = units.get(m.unit);
    if (dupUnit !== undefined) {
      errors.push({ field: `${f}.unit`, value: m.unit, rule: 'duplicate', message: `is also watched by healthMonitors[${dupUnit}]; two monitors would fight over one service` });
    } else units.set(m.unit, i);
    checkCheck(errors, `${f}.check`, m.check);
    intInRange(errors, `${f}.intervalSeconds`, m.intervalSeconds, 1, 3600);
    intInRange(errors, `${f}.timeoutSeconds`, m.timeoutSeconds, 1, 600);
    intInRange(errors, `${f}.failureThreshold`, m.failureThreshold, 1, 100);
    intInRange(errors, `${f}.bootGraceSeconds`, m.bootGraceSeconds, 0, 86400);
    intInRange(errors, `${f}.killGraceSeconds`, m.killGraceSeconds, 1, 600);
    intInRange(errors, `${f}.restartBudget.maxRestarts`, m.restartBudget.maxRestarts, 0, 1000);
    intInRange(errors, `${f}.restartBudget.windowSeconds`, m.restartBudget.windowSeconds, 60, 7 * 86400);
    intInRange(errors, `${f}.backoff.initialSeconds`, m.backoff.initialSeconds, 0, 86400);
    intInRange(errors, `${f}.backoff.maxSeconds`, m.backoff.maxSeconds, 0, 86400);
    if (m.backoff.maxSeconds < m.backoff.initialSeconds) {
      errors.push({ field: `${f}.backoff.maxSeconds`, value: String(m.backoff.maxSeconds), rule: 'range', message: `must be at least backoff.initialSeconds (${m.backoff.initialSeconds})` });
    }
    intInRange(errors, `${f}.restartSec`, m.restartSec, 0, 3600);
  });
}

/** Defaults + every rule. Left: all errors found; Right: a config the generator can trust. */
export function resolveConfig(raw: RawConfig): Either<readonly ConfigError[], OverlayConfig> {
  const errors: ConfigError[] = [];
  const volatile = raw.volatile ?? DEFAULT_VOLATILE;
  const persistent = raw.persistent ?? DEFAULT_PERSISTENT;
  const tmpfsSize = raw.tmpfsSize ?? DEFAULT_TMPFS_SIZE;
  const stateDir = raw.stateDir ?? DEFAULT_STATE_DIR;
  const containerRuntime: ContainerRuntime = { ...DEFAULT_CONTAINER_RUNTIME, ...raw.containerRuntime };
  const shared = raw.monitorDefaults ?? {};
  // Listed monitors: their own settings beat monitorDefaults. Built-in monitors: monitorDefaults
  // beat the built-in tweaks (a person who sets a default expects it everywhere).
  const inputs: readonly MonitorInput[] =
    raw.healthMonitors ?? defaultHealthMonitors(containerRuntime).map((d) => ({ ...d, ...definedOnly(shared) }));
  const healthMonitors = inputs.map((m) => resolveMonitor(m, shared));

  if (volatile.length === 0) {
    errors.push({ field: 'volatile', rule: 'non-empty', message: 'must list at least one directory (otherwise there is nothing to overlay)' });
  }
  pathRules(errors, volatile, 'volatile');
  pathRules(errors, persistent, 'persistent');
  // Relations only between well-formed paths: "/etc/$(x)" is reported once, as unsafe.
  const wellFormed = (list: readonly string[]) => list.map((p, i) => ({ p, i })).filter(({ p }) => !checkNodePath(p));
  relationRules(errors, wellFormed(volatile), wellFormed(persistent), raw.persistent === undefined);
  if (!TMPFS_SIZE.test(tmpfsSize)) {
    errors.push({ field: 'tmpfsSize', value: tmpfsSize, rule: 'tmpfs-size', message: 'must be a size like 512M, 2G or a percentage of RAM like 10%' });
  }
  const sd = checkStateDir(stateDir);
  if (sd) errors.push({ field: 'stateDir', value: stateDir, rule: sd.rule, message: sd.message });
  checkUnit(errors, 'containerRuntime.unit', containerRuntime.unit);
  checkEndpoint(errors, 'containerRuntime.endpoint', containerRuntime.endpoint);
  monitorRules(errors, healthMonitors);

  if (errors.length > 0) return either.left(errors);
  const warnings = warningRules(wellFormed(volatile), wellFormed(persistent), raw.persistent === undefined).map(formatConfigError);
  return either.right({ volatile, persistent, tmpfsSize, stateDir, containerRuntime, healthMonitors, ...(warnings.length > 0 ? { warnings } : {}) });
}
