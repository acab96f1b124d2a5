// Node-local health monitor, one script + unit per watched service. Improves on GCE's
// health-monitor.sh: a consecutive-failure threshold (one slow answer is not a dead kubelet),
// a boot grace measured as uptime (a restarted monitor does not wait again), a restart budget
// over a window with exponential backoff (a service that keeps dying is a node problem, left
// to node-level repair), SIGTERM then SIGKILL to the MAIN process only (killing containerd's
// whole cgroup would kill every container shim), and a Restart=always drop-in for the
// watched unit (Restart=on-failure does not restart after a clean SIGTERM exit).
import type { HealthCheck, HealthMonitor } from '../config/index.js';
import { GENERATED_BY, monitorScript } from './layout.js';
import { shQuote } from './shell.js';

function checkBody(check: HealthCheck): { tool: string; lines: string[] } {
  // `timeout` bounds every check even if the tool ignores its own timeout option.
  switch (check.type) {
    case 'http':
      return {
        tool: 'curl',
        lines: [`  timeout -k 5 "$TIMEOUT" curl -fsS -m "$TIMEOUT" -o /dev/null ${shQuote(check.url)}`],
      };
    case 'crictl':
      return {
        tool: 'crictl',
        lines: [
          '  # The endpoint is explicit: crictl would otherwise guess, or need /etc/crictl.yaml.',
          `  timeout -k 5 "$TIMEOUT" crictl --runtime-endpoint ${shQuote(check.endpoint)} --timeout "\${TIMEOUT}s" pods -q >/dev/null`,
        ],
      };
    case 'exec':
      return {
        tool: check.command[0] ?? 'true',
        lines: [
          // The arguments are the user's argv, quoted to reach the program literally: a
          // quoted ~ is meant as written (shellcheck's SC2088 assumes a forgotten expansion).
          ...(check.command.some((a) => a.startsWith('~'))
            ? ['  # shellcheck disable=SC2088 # argv is literal: ~ is not to be expanded']
            : []),
          `  timeout -k 5 "$TIMEOUT" ${check.command.map(shQuote).join(' ')}`,
        ],
      };
  }
}

/**
 * The monitor's POSIX sh script: waits out the boot grace, checks every interval, and after
 * `failureThreshold` consecutive failures kills the unit's main process, within the restart budget
 * and with backoff.
 */
export function healthMonitorScript(m: HealthMonitor): string {
  const body = checkBody(m.check);
  return [
    '#!/bin/sh',
    `# ${GENERATED_BY}`,
    `# Health monitor "${m.name}": checks ${m.unit} and kills its main process when it is unhealthy.`,
    'set -eu',
    '',
    `TAG=${shQuote(`noderepair-health-${m.name}`)}`,
    `UNIT=${shQuote(m.unit)}`,
    `INTERVAL=${m.intervalSeconds}`,
    `TIMEOUT=${m.timeoutSeconds}`,
    `THRESHOLD=${m.failureThreshold}`,
    `BOOT_GRACE=${m.bootGraceSeconds}`,
    `KILL_GRACE=${m.killGraceSeconds}`,
    `BUDGET_MAX=${m.restartBudget.maxRestarts}`,
    `BUDGET_WINDOW=${m.restartBudget.windowSeconds}`,
    `BACKOFF_INITIAL=${m.backoff.initialSeconds}`,
    `BACKOFF_MAX=${m.backoff.maxSeconds}`,
    `CHECK_TOOL=${shQuote(body.tool)}`,
    '',
    '# Under systemd, stderr is the journal (SyslogIdentifier in the unit); by hand, syslog too.',
    'log() {',
    '  if [ -z "${INVOCATION_ID:-}" ]; then logger -t "$TAG" -p daemon.info -- "$*" 2>/dev/null || true; fi',
    '  printf \'%s: %s\\n\' "$TAG" "$*" >&2',
    '}',
    '# Seconds since boot: monotonic, unaffected by clock changes.',
    'uptime_s() { cut -d. -f1 /proc/uptime; }',
    'main_pid() { systemctl show -p MainPID --value "$UNIT"; }',
    '',
    'check() {',
    ...body.lines,
    '}',
    '',
    '# Restart the service: SIGTERM to the main process only, SIGKILL if it is still there',
    '# after the grace (a stopped or hung process ignores SIGTERM); systemd\'s Restart=always',
    '# (our drop-in) starts it again. A service that is not running at all is restarted.',
    'restart_unit() {',
    '  pid=$(main_pid)',
    '  if [ "${pid:-0}" -gt 0 ]; then',
    '    log "killing main process $pid of $UNIT (SIGTERM)"',
    '    systemctl kill --kill-who=main --signal=SIGTERM "$UNIT" || true',
    '    waited=0',
    '    while [ "$waited" -lt "$KILL_GRACE" ] && [ "$(main_pid)" = "$pid" ]; do',
    '      sleep 1',
    '      waited=$((waited + 1))',
    '    done',
    '    if [ "$(main_pid)" = "$pid" ]; then',
    '      log "main process $pid of $UNIT still running after ${KILL_GRACE}s; sending SIGKILL"',
    '      systemctl kill --kill-who=main --signal=SIGKILL "$UNIT" || true',
    '    fi',
    '  else',
    '    log "$UNIT has no main process; restarting it"',
    '    systemctl reset-failed "$UNIT" 2>/dev/null || true',
    '    systemctl restart --no-block "$UNIT" || log "systemctl restart $UNIT failed"',
    '  fi',
    '}',
    '',
    '# Restarts (as uptimes) inside the budget window; sets RECENT to their number.',
    'RESTARTS=""',
    'prune_restarts() {',
    '  now=$(uptime_s) kept="" RECENT=0',
    '  for t in $RESTARTS; do',
    '    if [ $((now - t)) -lt "$BUDGET_WINDOW" ]; then',
    '      kept="$kept $t"',
    '      RECENT=$((RECENT + 1))',
    '    fi',
    '  done',
    '  RESTARTS=$kept',
    '}',
    '',
    'if ! command -v "$CHECK_TOOL" >/dev/null 2>&1; then',
    '  log "error: $CHECK_TOOL not found; cannot check $UNIT"',
    '  exit 78',
    'fi',
    'up=$(uptime_s)',
    'if [ "$up" -lt "$BOOT_GRACE" ]; then',
    '  log "boot grace: first check of $UNIT in $((BOOT_GRACE - up))s"',
    '  sleep $((BOOT_GRACE - up))',
    'fi',
    'log "watching $UNIT every ${INTERVAL}s (threshold $THRESHOLD, budget $BUDGET_MAX restarts per ${BUDGET_WINDOW}s)"',
    'failures=0',
    'while :; do',
    '  if out=$(check 2>&1); then',
    '    if [ "$failures" -gt 0 ]; then log "$UNIT healthy again after $failures failed check(s)"; fi',
    '    failures=0',
    '  else',
    '    failures=$((failures + 1))',
    '    log "$UNIT health check failed ($failures/$THRESHOLD): $(printf \'%s\' "$out" | tr \'\\n\' \' \' | cut -c1-200)"',
    '    if [ "$failures" -ge "$THRESHOLD" ]; then',
    '      failures=0',
    '      prune_restarts',
    '      if [ "$RECENT" -ge "$BUDGET_MAX" ]; then',
    '        log "restart budget exhausted ($RECENT restarts of $UNIT in ${BUDGET_WINDOW}s); not restarting, node-level repair takes over"',
    '      else',
    '        restart_unit',
    '        RESTARTS="$RESTARTS $(uptime_s)"',
    '        delay=$BACKOFF_INITIAL i=0',
    '        while [ "$i" -lt "$RECENT" ] && [ "$delay" -lt "$BACKOFF_MAX" ]; do',
    '          delay=$((delay * 2))',
    '          i=$((i + 1))',
    '        done',
    '        if [ "$delay" -gt "$BACKOFF_MAX" ]; then delay=$BACKOFF_MAX; fi',
    '        log "restarted $UNIT ($((RECENT + 1))/$BUDGET_MAX in window); next check in ${delay}s"',
    '        sleep "$delay"',
    '        continue',
    '      fi',
    '    fi',
    '  fi',
    '  sleep "$INTERVAL"',
    'done',
    '',
  ].join('\n');
}

/**
 * The systemd unit that keeps the monitor's script running (Restart=always, except on exit 78: the
 * check tool is missing).
 */
export function healthMonitorUnit(m: HealthMonitor): string {
  return [
    `# ${GENERATED_BY}`,
    '[Unit]',
    `Description=noderepair: health monitor for ${m.unit}`,
    'Documentation=https://github.com/noderepair/noderepair/tree/main/packages/overlayfs-gen',
    `After=${m.unit}`,
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${monitorScript(m.name)}`,
    `SyslogIdentifier=noderepair-health-${m.name}`,
    'Restart=always',
    'RestartSec=10',
    // 78 = EX_CONFIG: the check tool is missing; restarting cannot fix that.
    'RestartPreventExitStatus=78',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

/** Drop-in for the watched unit: always restart, never give up (the monitor's budget limits). */
export function restartDropInContent(m: HealthMonitor): string {
  return [
    `# ${GENERATED_BY}`,
    `# Makes ${m.unit} come back after the health monitor kills its main process.`,
    '[Unit]',
    'StartLimitIntervalSec=0',
    '',
    '[Service]',
    'Restart=always',
    `RestartSec=${m.restartSec}`,
    '',
  ].join('\n');
}
