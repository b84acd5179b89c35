#!/usr/bin/env python3
"""Checks one installed askd (the npm launcher or the wheel's script), as a user would run it:
`askd --version`, `askd try --help`, a usage error's exit code, a real MCP `initialize` over stdio through `askd mcp`
(which starts a daemon in a scratch ASKD_HOME), the daemon's web page (the UI must be in the
binary: 200 with the page, not a 503 naming a missing ui/), then `askd stop`.

Usage: package-check.py LABEL ASKD_COMMAND..."""
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

label, cmd = sys.argv[1], sys.argv[2:]
failures = []


def check(name, ok, detail=""):
    print(f"{'ok' if ok else 'FAIL'}  {label}: {name}" + (f" — {detail}" if detail and not ok else ""))
    if not ok:
        failures.append(name)


home = tempfile.mkdtemp(prefix=f"askd-{label}-")
env = {**os.environ, "ASKD_HOME": home, "ASKD_NO_BROWSER": "1", "ASKD_LOG": "warn"}

v = subprocess.run(cmd + ["--version"], capture_output=True, text=True, env=env, timeout=60)
check("askd --version", v.returncode == 0 and v.stdout.startswith("askd "), v.stdout + v.stderr)
print(f"      {v.stdout.strip()}")

h = subprocess.run(cmd + ["try", "--help"], capture_output=True, text=True, env=env, timeout=60)
check("askd try --help", h.returncode == 0 and "--answer-in" in h.stdout and "ASKD_HOME" in h.stdout,
      h.stdout[-400:] + h.stderr)

u = subprocess.run(cmd + ["asks", "list", "--kind", "bogus"], capture_output=True, text=True, env=env, timeout=60)
check("a usage error's exit code 2 comes through", u.returncode == 2 and "survey, questions, review, drift" in u.stderr,
      f"rc {u.returncode}: {u.stderr}")

mcp = subprocess.Popen(cmd + ["mcp", "--listen", "127.0.0.1:0"], stdin=subprocess.PIPE,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "package-check", "version": "1"}}}
mcp.stdin.write(json.dumps(init) + "\n")
mcp.stdin.flush()
line = mcp.stdout.readline()
try:
    reply = json.loads(line)
except ValueError:
    reply = {}
server = reply.get("result", {}).get("serverInfo", {})
check("MCP initialize through askd mcp", reply.get("id") == 1 and server.get("name") == "askd",
      f"reply {line!r}")
mcp.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
mcp.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) + "\n")
mcp.stdin.flush()
tools = json.loads(mcp.stdout.readline() or "{}").get("result", {}).get("tools", [])
check("MCP tools/list names ask_survey", any(t.get("name") == "ask_survey" for t in tools), str(tools)[:300])
mcp.stdin.close()
try:
    mcp.wait(timeout=20)
except subprocess.TimeoutExpired:
    mcp.kill()
    check("askd mcp exits when stdin closes", False)

# The daemon askd mcp started: its page is served from the binary.
info = {}
for _ in range(100):
    try:
        info = json.load(open(os.path.join(home, "daemon.json")))
        break
    except (OSError, ValueError):
        time.sleep(0.1)
token = open(os.path.join(home, "token")).read().strip() if info else ""
try:
    req = urllib.request.Request(f"{info.get('url')}/", headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=10) as r:
        page = r.read().decode()
        check("the web page is in the binary", r.status == 200 and "<html" in page.lower(), page[:200])
except Exception as e:  # noqa: BLE001 — any failure to get the page is the check's failure
    body = e.read().decode() if hasattr(e, "read") else ""
    check("the web page is in the binary", False, f"{e} {body}")

s = subprocess.run(cmd + ["stop"], capture_output=True, text=True, env=env, timeout=60)
check("askd stop", s.returncode == 0 and not os.path.exists(os.path.join(home, "daemon.json")),
      s.stdout + s.stderr)

sys.exit(1 if failures else 0)
