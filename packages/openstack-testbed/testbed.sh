#!/usr/bin/env bash
# A minimal, real OpenStack on loopback, from Debian's packages (bookworm: Zed release):
# MariaDB, RabbitMQ, Keystone, Placement, Glance (file store), Neutron server (no agents:
# Nova asks it for an instance's ports on every reboot/start, even with no network), and
# Nova API, conductor, scheduler and compute with the fake virt driver.
#
# Only the Debian python packages are installed (no nova-api/keystone service packages): those
# would run dbconfig-common and try to start system-wide daemons. Every daemon here is started
# by this script, bound to 127.0.0.1, with its config, data, pid and log under $STATE.
#
# Subcommands: install | start | status | stop | env | create-server NAME... | reset-project | pause-compute | resume-compute
set -euo pipefail

STATE="${NODEREPAIR_OPENSTACK_STATE:-$HOME/.cache/noderepair/openstack}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ETC="$STATE/etc"
RUN="$STATE/run"
LOGS="$STATE/logs"
HOST=127.0.0.1
DB_PORT="${NODEREPAIR_OPENSTACK_DB_PORT:-13306}"
AMQP_PORT="${NODEREPAIR_OPENSTACK_AMQP_PORT:-35672}"
EPMD_PORT="${NODEREPAIR_OPENSTACK_EPMD_PORT:-14369}"
KEYSTONE_PORT=5000
GLANCE_PORT=9292
PLACEMENT_PORT=8778
NEUTRON_PORT=9696
NOVA_PORT=8774
REGION=RegionOne
AUTH_URL="http://$HOST:$KEYSTONE_PORT/v3"
PROJECT=noderepair
USER_NAME=noderepair
APPCRED_NAME=noderepair-testbed
FLAVOR=testbed.tiny
IMAGE=testbed-cirros-fake
COMPUTE_HOST=testbed-compute
# Services in start order; stop goes in reverse.
SERVICES=(mariadb rabbitmq keystone placement glance neutron nova-api nova-conductor nova-scheduler nova-compute)

log() { printf '[testbed %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
trap 'log "ERROR: failed at line $LINENO: $BASH_COMMAND (logs in $LOGS)"' ERR

apt_packages() { grep -v '^\s*#' "$HERE/apt-packages.txt" | grep -v '^\s*$'; }

# ---------------------------------------------------------------------------- secrets
# Random passwords generated once per state dir; the file is 0600 and never printed by
# `status`. `env` prints the demo user's credentials because that is its purpose.
load_secrets() {
  if [[ ! -f "$STATE/secrets.env" ]]; then
    mkdir -p "$STATE"
    umask 077
    {
      for k in DB_PASS RABBIT_PASS ADMIN_PASS SERVICE_PASS USER_PASS; do
        echo "$k=$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')"
      done
    } >"$STATE/secrets.env"
    umask 022
  fi
  # shellcheck disable=SC1091
  source "$STATE/secrets.env"
}

# ---------------------------------------------------------------------------- processes
pidfile() { echo "$RUN/$1.pid"; }
is_running() {
  local f; f="$(pidfile "$1")"
  [[ -f "$f" ]] && kill -0 "$(cat "$f")" 2>/dev/null
}
# spawn NAME CMD...: run in its own session (so stop can kill the whole group), log to file.
spawn() {
  local name="$1"; shift
  if is_running "$name"; then log "$name already running (pid $(cat "$(pidfile "$name")"))"; return 0; fi
  mkdir -p "$RUN" "$LOGS"
  # Through bash so that helper functions (py_entry, rabbit_env) can be daemons too.
  setsid bash -c "$(declare -f py_entry rabbit_env); $(declare -p STATE ETC RUN LOGS HOST AMQP_PORT EPMD_PORT); \"\$@\"" \
    "$name" "$@" >>"$LOGS/$name.log" 2>&1 </dev/null &
  echo $! >"$(pidfile "$name")"
  log "started $name (pid $!), log $LOGS/$name.log"
}
wait_port() {
  local name="$1" port="$2" timeout="${3:-120}" i
  for ((i = 0; i < timeout * 4; i++)); do
    if (exec 3<>"/dev/tcp/$HOST/$port") 2>/dev/null; then return 0; fi
    is_running "$name" || { tail -n 30 "$LOGS/$name.log" >&2 || true; die "$name exited; see $LOGS/$name.log"; }
    sleep 0.25
  done
  tail -n 30 "$LOGS/$name.log" >&2 || true
  die "$name did not listen on $HOST:$port within ${timeout}s"
}
port_busy() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }
descendants() { # PID: every process below it (glance-api moves its workers to a new process group)
  local c
  for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo "$c"; descendants "$c"; done
}
stop_one() {
  local name="$1" f pid i tree p alive
  f="$(pidfile "$name")"
  [[ -f "$f" ]] || return 0
  pid="$(cat "$f")"
  if kill -0 "$pid" 2>/dev/null; then
    log "stopping $name (pid $pid)"
    tree="$pid $(descendants "$pid" | tr '\n' ' ')"
    kill -TERM -- "-$pid" 2>/dev/null || true
    # shellcheck disable=SC2086
    kill -TERM $tree 2>/dev/null || true
    for ((i = 0; i < 40; i++)); do
      alive=0; for p in $tree; do kill -0 "$p" 2>/dev/null && alive=1; done
      ((alive)) || break; sleep 0.25
    done
    kill -KILL -- "-$pid" 2>/dev/null || true
    # shellcheck disable=SC2086
    kill -KILL $tree 2>/dev/null || true
  fi
  rm -f "$f"
}

# python console entry point without the Debian service package's /usr/bin wrapper.
py_entry() {
  local argv0="$1" target="$2"; shift 2
  local pre=""
  if [[ "$target" == neutron_server_entry:main ]]; then
    target=neutron.cmd.eventlet.server:main
    pre="import neutron.cmd.eventlet.server, neutron.db.migration.models.head, sqlalchemy.orm; sqlalchemy.orm.configure_mappers(); "
  fi
  /usr/bin/python3 -c "import sys; sys.argv[0] = '$argv0'; ${pre}from ${target%%:*} import ${target##*:} as m; sys.exit(m())" "$@"
}
# Neutron's get_ports() reads the Port.port_forwardings backref as a class attribute; it only
# exists once SQLAlchemy has configured every mapper, which in a fresh API worker may not
# have happened before the first GET /v2.0/ports (nova's first call): HTTP 500. Configure
# all models up front (what neutron's own functional tests do by importing the model head).
nova_manage() { py_entry nova-manage nova.cmd.manage:main --config-file "$ETC/nova/nova.conf" "$@"; }

mysql_root() { mariadb --no-defaults --protocol=socket -S "$RUN/mysqld.sock" -uroot "$@"; }
db_url() { echo "mysql+pymysql://openstack:$DB_PASS@$HOST:$DB_PORT/$1?charset=utf8"; }

# ---------------------------------------------------------------------------- install
install_packages() {
  local missing=()
  mapfile -t pkgs < <(apt_packages)
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then log "Debian packages already installed"; return 0; fi
  log "apt-get install ${missing[*]}"
  local sudo=""; [[ $(id -u) -eq 0 ]] || sudo="sudo"
  # Another engineer or CI step may hold the dpkg lock: wait for it rather than fail.
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y \
    --no-install-recommends -o Dpkg::Options::=--force-confold "${missing[@]}" >"$LOGS/apt-install.log" 2>&1 \
    || { tail -n 30 "$LOGS/apt-install.log" >&2; die "apt-get install failed"; }
}

# The paste pipelines (api-paste.ini) ship in the *-common service packages, which we do not
# install (dbconfig-common, daemons); take the files from the same Debian version's .deb.
fetch_paste_files() {
  local d="$STATE/debs"
  if [[ -f "$d/x/usr/share/nova-common/api-paste.ini" && -f "$d/x/usr/share/glance-common/glance-api-paste.ini" \
    && -f "$d/x/usr/share/neutron-common/api-paste.ini" ]]; then return 0; fi
  log "downloading nova-common, glance-common, neutron-common .debs for their api-paste.ini"
  mkdir -p "$d" && rm -rf "$d"/*.deb "$d/x"
  (cd "$d" && apt-get download nova-common glance-common neutron-common >"$LOGS/apt-download.log" 2>&1) \
    || { cat "$LOGS/apt-download.log" >&2; die "apt-get download failed"; }
  for f in "$d"/*.deb; do dpkg-deb -x "$f" "$d/x"; done
}

write_configs() {
  mkdir -p "$ETC"/{keystone,placement,glance,neutron/plugins/ml2,nova,rabbitmq} "$STATE"/{glance-images,nova/instances,keystone,rabbitmq,neutron} "$RUN" "$LOGS"
  local authtoken
  authtoken() { # authtoken SERVICE_USER
    cat <<EOF
[keystone_authtoken]
www_authenticate_uri = $AUTH_URL
auth_url = $AUTH_URL
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = $1
password = $SERVICE_PASS
region_name = $REGION
service_token_roles_required = true
EOF
  }
  umask 077

  cat >"$ETC/rabbitmq/rabbitmq.conf" <<EOF
listeners.tcp.1 = $HOST:$AMQP_PORT
default_user = openstack
default_pass = $RABBIT_PASS
loopback_users = none
EOF
  echo '[].' >"$ETC/rabbitmq/enabled_plugins"

  cat >"$ETC/keystone/keystone.conf" <<EOF
[DEFAULT]
log_file = $LOGS/keystone-app.log
[database]
connection = $(db_url keystone)
[token]
provider = fernet
expiration = 3600
[fernet_tokens]
key_repository = $STATE/keystone/fernet-keys
[fernet_receipts]
key_repository = $STATE/keystone/fernet-keys
[credential]
key_repository = $STATE/keystone/credential-keys
EOF

  { cat <<EOF
[DEFAULT]
log_file = $LOGS/placement-app.log
[placement_database]
connection = $(db_url placement)
[api]
auth_strategy = keystone
EOF
    authtoken placement; } >"$ETC/placement/placement.conf"

  { cat <<EOF
[DEFAULT]
bind_host = $HOST
bind_port = $GLANCE_PORT
workers = 1
log_file = $LOGS/glance-app.log
enabled_backends = file:file
[database]
connection = $(db_url glance)
[paste_deploy]
flavor = keystone
config_file = $ETC/glance/glance-api-paste.ini
[glance_store]
default_backend = file
[file]
filesystem_store_datadir = $STATE/glance-images/
[os_glance_staging_store]
filesystem_store_datadir = $STATE/glance-images/staging/
[os_glance_tasks_store]
filesystem_store_datadir = $STATE/glance-images/tasks/
[oslo_concurrency]
lock_path = $STATE/glance-locks
EOF
    authtoken glance; } >"$ETC/glance/glance-api.conf"
  cp "$STATE/debs/x/usr/share/glance-common/glance-api-paste.ini" "$ETC/glance/glance-api-paste.ini"

  { cat <<EOF
[DEFAULT]
bind_host = $HOST
bind_port = $NEUTRON_PORT
core_plugin = ml2
# port_forwarding only for its DB model: Zed's get_ports() reads Port.port_forwardings, which
# exists only once that model is imported (500 on GET /v2.0/ports otherwise).
service_plugins = router,port_forwarding
auth_strategy = keystone
api_paste_config = $ETC/neutron/api-paste.ini
transport_url = rabbit://openstack:$RABBIT_PASS@$HOST:$AMQP_PORT/
notify_nova_on_port_status_changes = false
notify_nova_on_port_data_changes = false
api_workers = 1
rpc_workers = 0
rpc_state_report_workers = 0
state_path = $STATE/neutron
log_file = $LOGS/neutron-app.log
[database]
connection = $(db_url neutron)
[oslo_concurrency]
lock_path = $STATE/neutron/lock
[ml2]
type_drivers = local,flat
tenant_network_types = local
mechanism_drivers =
extension_drivers = port_security
EOF
    authtoken neutron; } >"$ETC/neutron/neutron.conf"
  cp "$STATE/debs/x/usr/share/neutron-common/api-paste.ini" "$ETC/neutron/api-paste.ini"

  { cat <<EOF
[DEFAULT]
my_ip = $HOST
host = $COMPUTE_HOST
transport_url = rabbit://openstack:$RABBIT_PASS@$HOST:$AMQP_PORT/
compute_driver = fake.FakeDriver
state_path = $STATE/nova
instances_path = $STATE/nova/instances
enabled_apis = osapi_compute
osapi_compute_listen = $HOST
osapi_compute_workers = 1
metadata_workers = 1
# The fake driver runs with no network; only Neutron's API is consulted.
[wsgi]
api_paste_config = $ETC/nova/api-paste.ini
[api]
auth_strategy = keystone
[api_database]
connection = $(db_url nova_api)
[database]
connection = $(db_url nova)
[conductor]
workers = 1
[scheduler]
workers = 1
discover_hosts_in_cells_interval = 2
[oslo_concurrency]
lock_path = $STATE/nova/lock
[glance]
api_servers = http://$HOST:$GLANCE_PORT
[neutron]
auth_url = $AUTH_URL
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = neutron
password = $SERVICE_PASS
region_name = $REGION
endpoint_override = http://$HOST:$NEUTRON_PORT
[placement]
auth_url = $AUTH_URL
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = placement
password = $SERVICE_PASS
region_name = $REGION
[service_user]
send_service_user_token = false
[vnc]
enabled = false
[oslo_messaging_notifications]
driver = noop
EOF
    authtoken nova; } >"$ETC/nova/nova.conf"
  cp "$STATE/debs/x/usr/share/nova-common/api-paste.ini" "$ETC/nova/api-paste.ini"
  umask 022

  # uwsgi entry for nova-api (Debian's nova-api package would ship /usr/bin/nova-api-wsgi).
  cat >"$ETC/nova/nova-api-wsgi.py" <<'EOF'
from nova.api.openstack.compute.wsgi import init_application
application = init_application()
EOF
}

# ---------------------------------------------------------------------------- daemons
start_mariadb() {
  if [[ ! -d "$STATE/mysql/mysql" ]]; then
    log "initialising MariaDB data dir"
    mkdir -p "$STATE/mysql"
    mariadb-install-db --no-defaults --datadir="$STATE/mysql" --user="$(id -un)" \
      --auth-root-authentication-method=socket --skip-test-db >"$LOGS/mariadb-install.log" 2>&1 \
      || { tail -n 20 "$LOGS/mariadb-install.log" >&2; die "mariadb-install-db failed"; }
  fi
  is_running mariadb || ! port_busy "$DB_PORT" || die "port $DB_PORT is taken by another process"
  spawn mariadb mariadbd --no-defaults --datadir="$STATE/mysql" --socket="$RUN/mysqld.sock" \
    --port="$DB_PORT" --bind-address="$HOST" --user="$(id -un)" --pid-file="$RUN/mysqld.real.pid" \
    --skip-name-resolve --max-connections=1000 --innodb-buffer-pool-size=128M \
    --innodb-flush-log-at-trx-commit=2 --skip-log-bin --character-set-server=utf8mb4
  wait_port mariadb "$DB_PORT" 60
}

rabbit_env() {
  env HOME="$STATE/rabbitmq" RABBITMQ_NODENAME="noderepair@localhost" RABBITMQ_NODE_IP_ADDRESS="$HOST" \
    RABBITMQ_NODE_PORT="$AMQP_PORT" RABBITMQ_DIST_PORT="$((AMQP_PORT + 1))" ERL_EPMD_ADDRESS="$HOST" \
    ERL_EPMD_PORT="$EPMD_PORT" RABBITMQ_CONFIG_FILE="$ETC/rabbitmq/rabbitmq" \
    RABBITMQ_ENABLED_PLUGINS_FILE="$ETC/rabbitmq/enabled_plugins" RABBITMQ_MNESIA_BASE="$STATE/rabbitmq/mnesia" \
    RABBITMQ_LOG_BASE="$LOGS/rabbitmq" RABBITMQ_PID_FILE="$RUN/rabbitmq.real.pid" \
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}" \
    RABBITMQ_CTL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}" "$@"
}
start_rabbitmq() {
  is_running rabbitmq || ! port_busy "$AMQP_PORT" || die "port $AMQP_PORT is taken by another process"
  # /usr/sbin/rabbitmq-server would su to the rabbitmq user, who cannot read $STATE.
  spawn rabbitmq rabbit_env /usr/lib/rabbitmq/bin/rabbitmq-server
  wait_port rabbitmq "$AMQP_PORT" 120
}

uwsgi_app() { # NAME PORT WSGI_FILE ENV...
  local name="$1" port="$2" file="$3"; shift 3
  local envs=(); for e in "$@"; do envs+=(--env "$e"); done
  # nova-api monkey-patches with eventlet, which cannot switch greenlets across uwsgi threads:
  # six concurrent POST /servers once wedged it ("greenlet.error: cannot switch to a different
  # thread", every later create hung). Nova gets processes of one thread each (as DevStack runs it).
  local workers=(--processes 1 --threads 8)
  [ "$name" = nova-api ] && workers=(--processes 4 --threads 1)
  spawn "$name" uwsgi --plugin python3 --http-socket "$HOST:$port" --wsgi-file "$file" --master \
    "${workers[@]}" --die-on-term --need-app --buffer-size 65535 --lazy-apps \
    --add-header "Connection: close" --hook-master-start "unix_signal:15 gracefully_kill_them_all" "${envs[@]}"
}
start_service() {
  case "$1" in
    mariadb) start_mariadb ;;
    rabbitmq) start_rabbitmq ;;
    keystone) uwsgi_app keystone "$KEYSTONE_PORT" /usr/bin/keystone-wsgi-public "OS_KEYSTONE_CONFIG_FILES=$ETC/keystone/keystone.conf"
      wait_port keystone "$KEYSTONE_PORT" ;;
    placement) uwsgi_app placement "$PLACEMENT_PORT" /usr/bin/placement-api "OS_PLACEMENT_CONFIG_DIR=$ETC/placement"
      wait_port placement "$PLACEMENT_PORT" ;;
    glance) spawn glance py_entry glance-api glance.cmd.api:main --config-file "$ETC/glance/glance-api.conf"
      wait_port glance "$GLANCE_PORT" ;;
    neutron) spawn neutron py_entry neutron-server neutron_server_entry:main --config-file "$ETC/neutron/neutron.conf"
      wait_port neutron "$NEUTRON_PORT" ;;
    nova-api) uwsgi_app nova-api "$NOVA_PORT" "$ETC/nova/nova-api-wsgi.py" "OS_NOVA_CONFIG_DIR=$ETC/nova"
      wait_port nova-api "$NOVA_PORT" ;;
    nova-conductor) spawn nova-conductor py_entry nova-conductor nova.cmd.conductor:main --config-file "$ETC/nova/nova.conf" ;;
    nova-scheduler) spawn nova-scheduler py_entry nova-scheduler nova.cmd.scheduler:main --config-file "$ETC/nova/nova.conf" ;;
    nova-compute) spawn nova-compute py_entry nova-compute nova.cmd.compute:main --config-file "$ETC/nova/nova.conf" ;;
    *) die "unknown service $1" ;;
  esac
}

# ---------------------------------------------------------------------------- bootstrap
# bootstrap.py does the REST calls; it reads these from its environment.
bootstrap_py() {
  env AUTH_URL="$AUTH_URL" REGION="$REGION" HOST="$HOST" ADMIN_PASS="$ADMIN_PASS" SERVICE_PASS="$SERVICE_PASS" \
    USER_PASS="$USER_PASS" PROJECT="$PROJECT" USER_NAME="$USER_NAME" APPCRED_NAME="$APPCRED_NAME" \
    APPCRED_FILE="$STATE/appcred.env" FLAVOR="$FLAVOR" IMAGE="$IMAGE" PLACEMENT_PORT="$PLACEMENT_PORT" \
    GLANCE_PORT="$GLANCE_PORT" NEUTRON_PORT="$NEUTRON_PORT" NOVA_PORT="$NOVA_PORT" \
    /usr/bin/python3 "$HERE/bootstrap.py" "$@"
}
bootstrap_identity() {
  log "keystone bootstrap: admin, service project, service users, catalog"
  py_entry keystone-manage keystone.cmd.manage:main --config-file "$ETC/keystone/keystone.conf" bootstrap \
    --bootstrap-password "$ADMIN_PASS" --bootstrap-admin-url "$AUTH_URL/" --bootstrap-internal-url "$AUTH_URL/" \
    --bootstrap-public-url "$AUTH_URL/" --bootstrap-region-id "$REGION" >>"$LOGS/bootstrap.log" 2>&1
}
bootstrap_catalog() {
  bootstrap_py catalog
}
bootstrap_tenant() {
  log "bootstrap: project $PROJECT, user $USER_NAME, application credential, flavor, image"
  bootstrap_py tenant
}
cell_setup() {
  log "nova: api_db sync, cell0, cell1, db sync"
  nova_manage api_db sync >>"$LOGS/db-sync.log" 2>&1
  nova_manage cell_v2 map_cell0 --database_connection "$(db_url nova_cell0)" >>"$LOGS/db-sync.log" 2>&1
  nova_manage cell_v2 list_cells 2>/dev/null | grep -q ' cell1 ' \
    || nova_manage cell_v2 create_cell --name cell1 >>"$LOGS/db-sync.log" 2>&1
  nova_manage db sync >>"$LOGS/db-sync.log" 2>&1
}
# $1: epoch seconds nova-compute was (re)started at, if it was: wait for a heartbeat of the NEW
# process (bootstrap.py reported_since says why the old one's "up" is not enough).
wait_compute_mapped() {
  log "waiting for nova-compute to report and be mapped to cell1"
  nova_manage cell_v2 discover_hosts >>"$LOGS/db-sync.log" 2>&1 || true
  bootstrap_py wait-compute "$@"
  nova_manage cell_v2 discover_hosts >>"$LOGS/db-sync.log" 2>&1
}

cmd_install() {
  local t0=$SECONDS
  mkdir -p "$STATE" "$LOGS" "$RUN"
  install_packages
  load_secrets
  fetch_paste_files
  write_configs
  if [[ -f "$STATE/.installed" ]]; then
    log "already installed and bootstrapped in $STATE ($((SECONDS - t0))s; delete that directory to start over)"
    return 0
  fi
  start_service mariadb
  start_service rabbitmq
  if [[ ! -f "$STATE/.db-created" ]]; then
    log "creating databases"
    local sql=""
    for db in keystone placement glance neutron nova_api nova nova_cell0; do sql+="CREATE DATABASE IF NOT EXISTS $db; GRANT ALL ON $db.* TO 'openstack'@'$HOST';"; done
    mysql_root -e "CREATE USER IF NOT EXISTS 'openstack'@'$HOST' IDENTIFIED BY '$DB_PASS'; $sql FLUSH PRIVILEGES;"
    touch "$STATE/.db-created"
  fi
  if [[ ! -f "$STATE/.synced" ]]; then
    log "keystone db_sync, fernet keys"
    local km=(py_entry keystone-manage keystone.cmd.manage:main --config-file "$ETC/keystone/keystone.conf")
    "${km[@]}" db_sync >>"$LOGS/db-sync.log" 2>&1
    "${km[@]}" fernet_setup --keystone-user "$(id -un)" --keystone-group "$(id -gn)" >>"$LOGS/db-sync.log" 2>&1
    "${km[@]}" credential_setup --keystone-user "$(id -un)" --keystone-group "$(id -gn)" >>"$LOGS/db-sync.log" 2>&1
    log "placement db sync"
    py_entry placement-manage placement.cmd.manage:main --config-file "$ETC/placement/placement.conf" db sync >>"$LOGS/db-sync.log" 2>&1
    log "glance db sync"
    py_entry glance-manage glance.cmd.manage:main --config-file "$ETC/glance/glance-api.conf" db_sync >>"$LOGS/db-sync.log" 2>&1
    log "neutron db upgrade"
    py_entry neutron-db-manage neutron.db.migration.cli:main --config-file "$ETC/neutron/neutron.conf" upgrade heads >>"$LOGS/db-sync.log" 2>&1
    cell_setup
    touch "$STATE/.synced"
  fi
  start_service keystone
  bootstrap_identity
  bootstrap_catalog
  local since; since=$(date +%s)
  for s in placement glance neutron nova-api nova-conductor nova-scheduler nova-compute; do start_service "$s"; done
  bootstrap_tenant
  wait_compute_mapped "$since"
  touch "$STATE/.installed"
  log "install done in $((SECONDS - t0))s; services are running (testbed.sh stop to stop them)"
}

cmd_start() {
  local t0=$SECONDS
  [[ -f "$STATE/.installed" ]] || die "not installed: run $0 install first"
  load_secrets
  local s started=0 since
  since=$(date +%s)
  for s in "${SERVICES[@]}"; do
    is_running "$s" || started=1
    start_service "$s"
  done
  if ((started)); then
    wait_compute_mapped "$since"
  else
    # Everything was running (each e2e file calls start): the host was mapped when compute
    # started, and two nova-manage runs cost over a minute on a loaded machine.
    log "all services were running: checking that nova-compute is up"
    bootstrap_py wait-compute
  fi
  log "lifting project quotas, deleting servers left by earlier runs"
  bootstrap_py reset-project >>"$LOGS/bootstrap.log" 2>&1 || { tail -n 5 "$LOGS/bootstrap.log" >&2; die "reset-project failed"; }
  log "started in $((SECONDS - t0))s"
}

cmd_status() {
  local s rc=0
  for s in "${SERVICES[@]}"; do
    if is_running "$s"; then printf '%-16s running (pid %s)\n' "$s" "$(cat "$(pidfile "$s")")"
    else printf '%-16s stopped\n' "$s"; rc=3; fi
  done
  return $rc
}

cmd_stop() {
  local i
  for ((i = ${#SERVICES[@]} - 1; i >= 0; i--)); do stop_one "${SERVICES[$i]}"; done
  # epmd daemonises out of rabbitmq's process group; ours listens on our private port only.
  ERL_EPMD_PORT="$EPMD_PORT" epmd -kill >/dev/null 2>&1 || true
  log "stopped"
}

# pause/resume nova-compute: freezes the compute host (SIGSTOP) so a task the API has accepted
# stays in progress; that is how a test gets Nova's 409 for a conflicting task state, which
# the fake driver otherwise finishes within milliseconds.
cmd_signal_compute() {
  is_running nova-compute || die "nova-compute is not running"
  kill "-$1" -- "-$(cat "$(pidfile nova-compute)")"
  log "nova-compute ${2}"
}

# stop-service/start-service NAME...: one service down and up again (an outage of Keystone or
# nova-api while the rest keeps running); start-service waits for its port like start does.
cmd_service() {
  local verb="$1" s; shift
  [[ $# -gt 0 ]] || die "$verb-service needs service names"
  for s in "$@"; do
    [[ " ${SERVICES[*]} " == *" $s "* ]] || die "unknown service $s (known: ${SERVICES[*]})"
  done
  load_secrets
  local since; since=$(date +%s)
  for s in "$@"; do
    if [[ "$verb" == stop ]]; then stop_one "$s"; else start_service "$s"; fi
  done
  # A restarted compute is usable once the NEW process has reported (see wait_compute_mapped).
  if [[ "$verb" == start && " $* " == *" nova-compute "* ]]; then bootstrap_py wait-compute "$since"; fi
}

cmd_env() {
  [[ -f "$STATE/.installed" ]] || die "not installed: run $0 install first"
  load_secrets
  # shellcheck disable=SC1091
  source "$STATE/appcred.env"
  umask 077
  cat >"$STATE/clouds.yaml" <<EOF
clouds:
  testbed:
    auth_type: password
    auth:
      auth_url: $AUTH_URL
      username: $USER_NAME
      password: $USER_PASS
      project_name: $PROJECT
      user_domain_name: Default
      project_domain_name: Default
    region_name: $REGION
    interface: public
    identity_api_version: 3
  testbed-appcred:
    auth_type: v3applicationcredential
    auth:
      auth_url: $AUTH_URL
      application_credential_id: $APPCRED_ID
      application_credential_secret: $APPCRED_SECRET
    region_name: $REGION
    interface: public
    identity_api_version: 3
EOF
  umask 022
  cat <<EOF
export OS_AUTH_URL=$AUTH_URL
export OS_IDENTITY_API_VERSION=3
export OS_REGION_NAME=$REGION
export OS_USERNAME=$USER_NAME
export OS_PASSWORD=$USER_PASS
export OS_PROJECT_NAME=$PROJECT
export OS_USER_DOMAIN_NAME=Default
export OS_PROJECT_DOMAIN_NAME=Default
export OS_APPLICATION_CREDENTIAL_ID=$APPCRED_ID
export OS_APPLICATION_CREDENTIAL_SECRET=$APPCRED_SECRET
export OS_TESTBED_FLAVOR=$FLAVOR
export OS_TESTBED_IMAGE=$IMAGE
export OS_CLIENT_CONFIG_FILE=$STATE/clouds.yaml
export OS_TESTBED_ADMIN_PASSWORD=$ADMIN_PASS
EOF
}

cmd_create_server() {
  [[ $# -gt 0 ]] || die "create-server needs at least one NAME"
  local name
  for name in "$@"; do
    [[ "$name" =~ ^[A-Za-z0-9._-]{1,63}$ ]] || die "create-server: NAME '$name' is not 1-63 letters, digits, '.', '_' or '-'"
  done
  [[ -f "$STATE/.installed" ]] || die "not installed: run $0 install first"
  load_secrets
  bootstrap_py create-server "$@"
}

# Deletes every server of the test bed's project (what start does first), for a user that
# created many (the bench) and must not leave them to the next start.
cmd_reset_project() {
  [[ -f "$STATE/.installed" ]] || die "not installed: run $0 install first"
  load_secrets
  bootstrap_py reset-project
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  status) cmd_status ;;
  stop) cmd_stop ;;
  env) cmd_env ;;
  create-server) shift; cmd_create_server "$@" ;;
  reset-project) cmd_reset_project ;;
  stop-service) shift; cmd_service stop "$@" ;;
  start-service) shift; cmd_service start "$@" ;;
  pause-compute) cmd_signal_compute STOP paused ;;
  resume-compute) cmd_signal_compute CONT resumed ;;
  *) echo "usage: $0 install|start|status|stop|env|create-server NAME...|stop-service NAME...|start-service NAME...|pause-compute|resume-compute" >&2; exit 2 ;;
esac
