"""REST calls testbed.sh needs after the services are up (stdlib only, run with Debian's
/usr/bin/python3). The openstack CLI would do the same, but each of its invocations costs
several seconds of imports; these calls take milliseconds.

Usage: bootstrap.py catalog | tenant | wait-compute [SINCE_EPOCH] | reset-project | create-server NAME...
Settings come from the environment that testbed.sh exports (never printed here).
"""
import datetime
import json
import os
import sys
import time
import urllib.error
import urllib.request

E = os.environ
AUTH_URL = E["AUTH_URL"]
REGION = E["REGION"]
HOST = E["HOST"]


def call(method, url, token=None, body=None, headers=None, ok=(200, 201, 202, 204)):
    data = None
    h = dict(headers or {})
    if body is not None:
        if isinstance(body, bytes):
            data = body
        else:
            data = json.dumps(body).encode()
            h.setdefault("Content-Type", "application/json")
    if token:
        h["X-Auth-Token"] = token
    req = urllib.request.Request(url, data=data, method=method, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=120) as res:
            raw = res.read()
            return res.status, res.headers, (json.loads(raw) if raw.strip() else None)
    except urllib.error.HTTPError as e:
        if e.code in ok:
            return e.code, e.headers, None
        detail = e.read()[:300].decode(errors="replace")
        raise SystemExit(f"bootstrap: {method} {url} -> HTTP {e.code}: {detail}")


def token(user, password, project):
    _, headers, body = call("POST", f"{AUTH_URL}/auth/tokens", body={"auth": {
        "identity": {"methods": ["password"], "password": {
            "user": {"name": user, "domain": {"id": "default"}, "password": password}}},
        "scope": {"project": {"name": project, "domain": {"id": "default"}}}}})
    catalog = {e["type"]: ep["url"] for e in body["token"]["catalog"] for ep in e["endpoints"]
               if ep["interface"] == "public" and ep["region_id"] == REGION}
    return headers["X-Subject-Token"], body["token"]["user"]["id"], catalog


def admin():
    return token("admin", E["ADMIN_PASS"], "admin")


def find(tok, kind, name, extra=""):
    _, _, body = call("GET", f"{AUTH_URL}/{kind}?name={name}{extra}", tok)
    items = body[kind]
    return items[0]["id"] if items else None


def ensure(tok, kind, singular, name, fields=None):
    found = find(tok, kind, name)
    if found:
        return found
    _, _, body = call("POST", f"{AUTH_URL}/{kind}", tok, {singular: {"name": name, **(fields or {})}})
    return body[singular]["id"]


def ensure_user(tok, name, password, project_id=None):
    uid = find(tok, "users", name, "&domain_id=default")
    if uid:
        call("PATCH", f"{AUTH_URL}/users/{uid}", tok, {"user": {"password": password}})
        return uid
    fields = {"domain_id": "default", "password": password, "enabled": True}
    if project_id:
        fields["default_project_id"] = project_id
    return ensure(tok, "users", "user", name, fields)


def grant(tok, project_id, user_id, role_id):
    call("PUT", f"{AUTH_URL}/projects/{project_id}/users/{user_id}/roles/{role_id}", tok)


def cmd_catalog():
    tok, _, _ = admin()
    service_project = ensure(tok, "projects", "project", "service", {"domain_id": "default"})
    admin_role = ensure(tok, "roles", "role", "admin")
    service_role = ensure(tok, "roles", "role", "service")
    ensure(tok, "roles", "role", "member")
    _, _, body = call("GET", f"{AUTH_URL}/services", tok)
    services = {s["type"]: s["id"] for s in body["services"]}
    for name, stype, port, path in [("placement", "placement", E["PLACEMENT_PORT"], ""),
                                    ("glance", "image", E["GLANCE_PORT"], ""),
                                    ("neutron", "network", E["NEUTRON_PORT"], ""),
                                    ("nova", "compute", E["NOVA_PORT"], "/v2.1")]:
        uid = ensure_user(tok, name, E["SERVICE_PASS"])
        grant(tok, service_project, uid, admin_role)
        grant(tok, service_project, uid, service_role)
        if stype not in services:
            _, _, s = call("POST", f"{AUTH_URL}/services", tok, {"service": {"name": name, "type": stype}})
            for iface in ("public", "internal", "admin"):
                call("POST", f"{AUTH_URL}/endpoints", tok, {"endpoint": {
                    "service_id": s["service"]["id"], "interface": iface, "region_id": REGION,
                    "url": f"http://{HOST}:{port}{path}"}})


def cmd_tenant():
    tok, _, catalog = admin()
    project = ensure(tok, "projects", "project", E["PROJECT"], {"domain_id": "default"})
    member = ensure(tok, "roles", "role", "member")
    uid = ensure_user(tok, E["USER_NAME"], E["USER_PASS"], project)
    grant(tok, project, uid, member)

    appcred_file = E["APPCRED_FILE"]
    if not os.path.exists(appcred_file):
        utok, user_id, _ = token(E["USER_NAME"], E["USER_PASS"], E["PROJECT"])
        base = f"{AUTH_URL}/users/{user_id}/application_credentials"
        _, _, body = call("GET", f"{base}?name={E['APPCRED_NAME']}", utok)
        for cred in body["application_credentials"]:
            call("DELETE", f"{base}/{cred['id']}", utok)
        _, _, body = call("POST", base, utok, {"application_credential": {"name": E["APPCRED_NAME"]}})
        cred = body["application_credential"]
        fd = os.open(appcred_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(f"APPCRED_ID={cred['id']}\nAPPCRED_SECRET={cred['secret']}\n")

    nova = catalog["compute"]
    _, _, body = call("GET", f"{nova}/flavors", tok)
    if not any(f["name"] == E["FLAVOR"] for f in body["flavors"]):
        call("POST", f"{nova}/flavors", tok, {"flavor": {
            "name": E["FLAVOR"], "ram": 64, "vcpus": 1, "disk": 1, "os-flavor-access:is_public": True}})

    glance = catalog["image"].rstrip("/")
    _, _, body = call("GET", f"{glance}/v2/images?name={E['IMAGE']}", tok)
    images = body["images"]
    if images and images[0]["status"] != "active":
        call("DELETE", f"{glance}/v2/images/{images[0]['id']}", tok)
        images = []
    if not images:
        _, _, img = call("POST", f"{glance}/v2/images", tok, {
            "name": E["IMAGE"], "disk_format": "raw", "container_format": "bare", "visibility": "public"})
        # A 1 MiB raw "disk" of zeros: the fake driver never boots it.
        call("PUT", f"{glance}/v2/images/{img['id']}/file", tok, b"\0" * 1048576,
             {"Content-Type": "application/octet-stream"})


def reported_since(service, since):
    """Whether the compute service's heartbeat (updated_at, UTC) is from `since` (epoch s) on.
    Nova calls a service "up" while its last heartbeat is younger than service_down_time
    (60 s), so right after a restart the PREVIOUS process's heartbeat still reads "up"; the new
    process reports first ~5 s after it starts. A build scheduled in between, once the old
    heartbeat ages past 60 s, fails with NoValidHost (a CI run lost a test to it)."""
    if since is None:
        return True
    stamp = service.get("updated_at")
    if not stamp:
        return False
    at = datetime.datetime.strptime(stamp.split(".")[0], "%Y-%m-%dT%H:%M:%S")
    return at.replace(tzinfo=datetime.timezone.utc).timestamp() >= since


def cmd_wait_compute(since=None):
    tok, _, catalog = admin()
    deadline = time.time() + 300
    while time.time() < deadline:
        _, _, body = call("GET", f"{catalog['compute']}/os-services?binary=nova-compute", tok)
        up = [s for s in body["services"]
              if s["state"] == "up" and s["status"] == "enabled" and reported_since(s, since)]
        _, _, hv = call("GET", f"{catalog['compute']}/os-hypervisors", tok)
        if up and hv["hypervisors"]:
            return
        time.sleep(1)
    raise SystemExit("bootstrap: nova-compute did not come up within 300s")


def cmd_reset_project():
    """Run at every start: the state directory is a cache that outlives a test run, so
    servers from earlier runs would pile up until Nova's default quota (10 instances)
    refuses the next create. The project is the testbed's own, so we lift its quotas and
    delete what earlier runs left behind."""
    tok, _, catalog = admin()
    nova = catalog["compute"]
    project = find(tok, "projects", E["PROJECT"])
    call("PUT", f"{nova}/os-quota-sets/{project}", tok,
         {"quota_set": {"instances": -1, "cores": -1, "ram": -1}})
    _, _, body = call("GET", f"{nova}/servers?all_tenants=1&project_id={project}", tok)
    for server in body["servers"]:
        call("DELETE", f"{nova}/servers/{server['id']}", tok, ok=(204, 404))
    # The fake driver deletes a server in about a second on a loaded 2-core host, one after
    # the other: the wait grows with what there is to delete (a bench leaves 200).
    wait = 120 + 2 * len(body["servers"])
    deadline = time.time() + wait
    while body["servers"] and time.time() < deadline:
        time.sleep(1)
        _, _, body = call("GET", f"{nova}/servers?all_tenants=1&project_id={project}", tok)
    if body["servers"]:
        raise SystemExit(f"bootstrap: {len(body['servers'])} leftover servers were not deleted within {wait}s")
    print(f"bootstrap: project quotas lifted, leftover servers deleted")


def cmd_create_server(names):
    """Creates the servers with one token, 4 POSTs at a time (nova-api runs 4 single-thread
    processes); prints their ids in order."""
    from concurrent.futures import ThreadPoolExecutor
    tok, _, catalog = token(E["USER_NAME"], E["USER_PASS"], E["PROJECT"])
    nova = catalog["compute"]
    _, _, body = call("GET", f"{nova}/flavors", tok)
    flavor = next(f["id"] for f in body["flavors"] if f["name"] == E["FLAVOR"])
    _, _, body = call("GET", f"{catalog['image'].rstrip('/')}/v2/images?name={E['IMAGE']}", tok)
    image = body["images"][0]["id"]

    def create(name):
        # networks "none" needs microversion 2.37: the fake driver needs no network.
        _, _, body = call("POST", f"{nova}/servers", tok, {"server": {
            "name": name, "flavorRef": flavor, "imageRef": image, "networks": "none"}},
            {"OpenStack-API-Version": "compute 2.37"})
        return body["server"]["id"]

    with ThreadPoolExecutor(max_workers=4) as pool:
        for server_id in pool.map(create, names):
            print(server_id)


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "catalog":
        cmd_catalog()
    elif cmd == "tenant":
        cmd_tenant()
    elif cmd == "wait-compute":
        cmd_wait_compute(int(sys.argv[2]) if len(sys.argv) > 2 else None)
    elif cmd == "reset-project":
        cmd_reset_project()
    elif cmd == "create-server" and len(sys.argv) >= 3:
        cmd_create_server(sys.argv[2:])
    else:
        raise SystemExit("usage: bootstrap.py catalog | tenant | wait-compute [SINCE_EPOCH] | reset-project | create-server NAME...")
