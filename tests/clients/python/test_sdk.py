"""askd driven by the official Python SDK client (PyPI ``mcp==2.3.0``) over stdio.

``stdio_client`` spawns ``askd mcp`` (which starts ``askd serve`` detached in a fresh
ASKD_HOME) and ``ClientSession`` speaks MCP to it, in both protocol eras: ``initialize``
(2025-11-25) and ``server/discover`` (2026-07-28, clientInfo in ``_meta``). The human answers
through askd's HTTP API. Results are read the way a Python client reads them:
``structured_content`` on success (which ``call_tool`` validates against the tool's
outputSchema itself) and the text blocks.

Run: ``python3 -m unittest discover -s tests/clients/python`` with the SDK installed (the
``clients`` step of scripts/test uses a venv under ``$CARGO_TARGET_DIR/clients-venv``).
Environment: ``ASKD_BIN`` (default ``target/debug/askd``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import time
import unittest
import urllib.error
import urllib.request
from pathlib import Path

import anyio
import mcp_types as types
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[3]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
BINARY = Path(os.environ.get("ASKD_BIN") or TARGET / "debug" / "askd")
FIXTURE = ROOT / "crates" / "askd-daemon" / "tests" / "fixtures" / "release-scope.json"
CLIENT = types.Implementation(name="askd-py-test", version="1.0.0")
CLIENT_LIMIT_S = 8.0  # the client's own limit in the "answers after the limit" scenarios

QUESTION_ANSWER = {"answers": [{"id": "db", "selected": ["PostgreSQL (Recommended)"]}]}
SURVEY_ANSWERS = {
    "answers": [
        {"id": "scope", "selected": ["a"], "justifications": {"a": "partners are blocked"}},
        {"id": "api", "selected": [], "custom": "REST endpoints first"},
        {"id": "ship", "selected": ["a", "c"]},
    ]
}
REVIEW_ANSWERS = {
    "answers": [
        {"id": "c1", "verdict": "pass"},
        {"id": "c2", "verdict": "fail", "note": "the name loses its extension"},
        {"id": "b1", "verdict": "yes"},
        {"id": "n1", "note": "the toast overlaps the footer"},
    ]
}
INVALID_ARGS = {"questions": [{"id": "db", "question": "Which database?", "options": [{"label": "PostgreSQL"}]}]}
INVALID_PATH = "questions[0].options"


def question_args(question: str) -> dict:
    return {
        "questions": [
            {
                "id": "db",
                "header": "Storage",
                "question": question,
                "options": [
                    {"label": "PostgreSQL (Recommended)", "description": "The team runs it already."},
                    {"label": "SQLite", "description": "One file, no server."},
                ],
            }
        ]
    }


def review_args(title: str) -> dict:
    return {
        "title": title,
        "items": [
            {"id": "c1", "title": "Copy button copies the full path", "group": "Copy",
             "op": "Click Copy", "expect": "The full path is on the clipboard"},
            {"id": "c2", "title": "Download keeps the file name", "group": "Copy"},
            {"id": "b1", "type": "bool", "title": "Keep the gateway resident", "boolDesc": "Accept"},
            {"id": "n1", "type": "text", "title": "Anything that looked off"},
        ],
    }


def texts(result: types.CallToolResult) -> list[str]:
    return [c.text for c in result.content if isinstance(c, types.TextContent)]


def json_text(result: types.CallToolResult) -> dict | None:
    """The first text block that parses as a JSON object."""
    for t in texts(result):
        try:
            v = json.loads(t)
        except ValueError:
            continue
        if isinstance(v, dict):
            return v
    return None


def first_leaf(group: BaseExceptionGroup) -> BaseException:
    """The first exception inside nested exception groups (an assertion, preferably)."""
    leaves = []

    def walk(e):
        if isinstance(e, BaseExceptionGroup):
            for x in e.exceptions:
                walk(x)
        else:
            leaves.append(e)

    walk(group)
    return next((e for e in leaves if isinstance(e, AssertionError)), leaves[0] if leaves else group)


class Daemon:
    """The human's side: askd's HTTP API of the daemon in ``home`` (docs/api.md)."""

    def __init__(self, home: Path, timeout: float = 15.0):
        deadline = time.monotonic() + timeout
        while True:
            try:
                meta = json.loads((home / "daemon.json").read_text())
                self.token = (home / "token").read_text().strip()
                if meta.get("url"):
                    break
            except (OSError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"no daemon wrote {home / 'daemon.json'}")
            time.sleep(0.025)
        self.url = meta["url"]
        self.pid = meta["pid"]

    def api(self, method: str, path: str, body: dict | None = None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=10) as res:
                return res.status, json.loads(res.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def asks(self, state: str = "pending") -> list[dict]:
        status, body = self.api("GET", f"/api/asks?state={state}")
        assert status == 200, body
        return body["asks"]

    def wait_for_pending(self, kind: str, except_ids: list[str], timeout: float = 15.0) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for a in self.asks("pending"):
                if a["kind"] == kind and a["id"] not in except_ids:
                    return a
            time.sleep(0.05)
        raise AssertionError(f"no pending {kind} ask appeared")

    def view(self, ask_id: str) -> dict:
        return self.api("GET", f"/api/asks/{ask_id}")[1]

    def submit(self, ask_id: str, body: dict) -> dict:
        status, res = self.api("POST", f"/api/asks/{ask_id}/submit", body)
        assert status == 200, f"submit {ask_id}: {status} {res}"
        return res

    def cancel(self, ask_id: str) -> dict:
        status, res = self.api("POST", f"/api/asks/{ask_id}/cancel", {})
        assert status == 200, f"cancel {ask_id}: {status} {res}"
        return res


def stop_daemon(home: Path) -> None:
    """Stops the daemon an adapter started detached (pid in daemon.json) and removes home."""
    try:
        pid = json.loads((home / "daemon.json").read_text())["pid"]
    except (OSError, ValueError, KeyError):
        pid = None
    if pid:
        try:
            os.kill(pid, signal.SIGTERM)
            for _ in range(60):
                os.kill(pid, 0)
                time.sleep(0.05)
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    shutil.rmtree(home, ignore_errors=True)


class Scenarios:
    """The scenarios every client runs; subclasses choose the protocol era."""

    ERA = "legacy"

    @classmethod
    def setUpClass(cls):
        if not BINARY.exists():
            raise unittest.SkipTest(f"{BINARY} is missing: build askd first (or set ASKD_BIN)")
        cls.home = Path(tempfile.mkdtemp(prefix=f"askd-py-{cls.ERA}-"))
        cls.daemon = None

    @classmethod
    def tearDownClass(cls):
        stop_daemon(cls.home)

    def server(self, extra_env: dict | None = None) -> StdioServerParameters:
        # stdio_client passes only a default environment whitelist to the server: askd's
        # settings must be given in env.
        env = {
            "ASKD_HOME": str(self.home),
            "ASKD_NO_BROWSER": "1",
            "ASKD_LISTEN": "127.0.0.1:0",
            "PATH": f"{BINARY.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        }
        env.update(extra_env or {})
        # The adapter's working directory is the session's workspace (askd writes survey
        # records under its .askd/): a directory of the test's own.
        workspace = self.home / "workspace"
        workspace.mkdir(exist_ok=True)
        return StdioServerParameters(command="askd", args=["mcp"], env=env, cwd=workspace)

    def run_session(self, body, extra_env: dict | None = None) -> str:
        """Runs ``body(session)`` in a fresh adapter session; returns the adapter's stderr."""
        with tempfile.TemporaryFile(mode="w+") as errlog:

            async def main():
                async with stdio_client(self.server(extra_env), errlog=errlog) as (read, write):
                    async with ClientSession(read, write, client_info=CLIENT) as session:
                        if self.ERA == "legacy":
                            init = await session.initialize()
                            self.assertEqual(init.protocol_version, "2025-11-25")
                        else:
                            await session.discover()
                            self.assertEqual(session.protocol_version, "2026-07-28")
                        listed = await session.list_tools()
                        self.tools = {t.name: t for t in listed.tools}
                        if type(self).daemon is None:
                            type(self).daemon = await anyio.to_thread.run_sync(Daemon, self.home)
                        await body(session)

            try:
                anyio.run(main)
            except BaseExceptionGroup as group:  # anyio's task groups wrap what the body raised
                raise first_leaf(group) from None
            errlog.seek(0)
            return errlog.read()

    async def human(self, kind: str, except_ids: list[str], act) -> dict:
        ask = await anyio.to_thread.run_sync(lambda: self.daemon.wait_for_pending(kind, except_ids))
        await anyio.to_thread.run_sync(lambda: act(ask["id"]))
        return ask

    async def answered(self, session: ClientSession, tool: str, kind: str, args: dict, act):
        """Calls ``tool`` while the human acts on the ask it creates; returns (ask, result)."""
        before = [] if self.daemon is None else [a["id"] for a in self.daemon.asks()]
        out = {}

        async def the_call():
            out["result"] = await session.call_tool(tool, args, read_timeout_seconds=30)

        async with anyio.create_task_group() as tg:
            tg.start_soon(the_call)
            out["ask"] = await self.human(kind, before, act)
        return out["ask"], out["result"]

    # ---- scenarios -------------------------------------------------------------------

    def test_tools_listed_with_output_schemas_and_annotations(self):
        async def body(session):
            for name in ("ask_user_question", "ask_survey", "batch_review", "await_answer"):
                self.assertIn(name, self.tools)
                self.assertIsNotNone(self.tools[name].output_schema, name)
            for name in ("ask_user_question", "ask_survey", "batch_review"):
                a = self.tools[name].annotations
                self.assertIsNotNone(a, name)
                self.assertEqual((a.destructive_hint, a.open_world_hint, a.idempotent_hint), (False, False, True), name)
                self.assertTrue(a.title, name)

        self.run_session(body)

    def test_ask_user_question(self):
        async def body(session):
            ask, r = await self.answered(session, "ask_user_question", "questions",
                                         question_args(f"Database ({self.ERA})?"),
                                         lambda i: self.daemon.submit(i, QUESTION_ANSWER))
            self.assertFalse(r.is_error, r)
            s = r.structured_content
            self.assertEqual(s["outcome"], "answered")
            self.assertEqual(s["ask_id"], ask["id"])
            self.assertEqual([(a["id"], a["selected"]) for a in s["answers"]], [("db", ["PostgreSQL (Recommended)"])])
            self.assertEqual(json_text(r)["answers"], s["answers"], "the text block holds the same JSON")
            # The session is labelled with the client's name, in either era.
            self.assertEqual(ask["client"], CLIENT.name)

        stderr = self.run_session(body)
        self.assertEqual(stderr, "", "the adapter keeps stderr quiet when all is well")

    def test_ask_survey(self):
        async def body(session):
            args = json.loads(FIXTURE.read_text())
            args["survey"]["title"] = f"Release scope ({self.ERA})"
            ask, r = await self.answered(session, "ask_survey", "survey", args,
                                         lambda i: self.daemon.submit(i, SURVEY_ANSWERS))
            self.assertFalse(r.is_error, r)
            s = r.structured_content
            self.assertEqual((s["outcome"], s["ask_id"]), ("answered", ask["id"]))
            self.assertEqual(s["path"], ["scope", "api", "ship"])
            by_id = {a["id"]: a for a in s["answers"]}
            self.assertEqual([o["key"] for o in by_id["scope"]["selected"]], ["a"])
            self.assertEqual(by_id["api"]["custom"], "REST endpoints first")
            self.assertEqual([o["label"] for o in by_id["ship"]["selected"]], ["Docs complete", "Migration guide"])

        self.run_session(body)

    def test_batch_review(self):
        async def body(session):
            ask, r = await self.answered(session, "batch_review", "review", review_args(f"Checklist ({self.ERA})"),
                                         lambda i: self.daemon.submit(i, REVIEW_ANSWERS))
            self.assertFalse(r.is_error, r)
            s = r.structured_content
            self.assertEqual((s["outcome"], s["ask_id"]), ("answered", ask["id"]))
            self.assertEqual([(i["id"], i["verdict"], i["filled"]) for i in s["items"]],
                             [("c1", "pass", True), ("c2", "fail", True), ("b1", "yes", True), ("n1", "", True)])
            self.assertEqual(s["items"][3]["note"], "the toast overlaps the footer")
            self.assertEqual((s["summary"]["pass"], s["summary"]["fail"], s["summary"]["yes"]), (1, 1, 1))

        self.run_session(body)

    def test_invalid_call_is_a_readable_error_result(self):
        async def body(session):
            r = await session.call_tool("ask_user_question", INVALID_ARGS)  # must not raise
            self.assertTrue(r.is_error)
            # askd keeps the error envelope as structuredContent (its output schemas admit it).
            self.assertIsNotNone((r.structured_content or {}).get("error"), r)
            first = texts(r)[0]
            self.assertIn(INVALID_PATH, first, "the first block names the path")
            self.assertIn("2 to 12", first, "says how to fix it")
            env = json_text(r)
            self.assertIsNotNone(env, "a text block holds the JSON envelope")
            self.assertIsInstance(env["error"]["code"], str)
            self.assertTrue(any(e["path"] == INVALID_PATH for e in env["error"]["errors"]), env)

        self.run_session(body)

    def test_answer_after_the_limit_pending_then_await_answer(self):
        async def body(session):
            t0 = time.monotonic()
            r = await session.call_tool("ask_user_question", question_args(f"Late answer ({self.ERA})?"),
                                        read_timeout_seconds=CLIENT_LIMIT_S)
            self.assertLess(time.monotonic() - t0, CLIENT_LIMIT_S)
            self.assertFalse(r.is_error, r)
            handle = r.structured_content
            self.assertEqual(handle["outcome"], "pending")
            self.assertIn("await_answer", handle["instruction"])
            await anyio.sleep(0.5)
            await anyio.to_thread.run_sync(lambda: self.daemon.submit(handle["ask_id"], QUESTION_ANSWER))
            later = await session.call_tool("await_answer", {"ask_id": handle["ask_id"]}, read_timeout_seconds=CLIENT_LIMIT_S)
            self.assertFalse(later.is_error, later)
            self.assertEqual(later.structured_content["outcome"], "answered")
            self.assertEqual(later.structured_content["answers"][0]["selected"], ["PostgreSQL (Recommended)"])

        self.run_session(body, {"ASKD_MAX_WAIT": "2"})

    def test_answer_after_the_limit_repeat_call_returns_it(self):
        async def body(session):
            args = question_args(f"Repeat after the limit ({self.ERA})?")
            before = [a["id"] for a in self.daemon.asks()]
            r = await session.call_tool("ask_user_question", args, read_timeout_seconds=CLIENT_LIMIT_S)
            self.assertEqual(r.structured_content["outcome"], "pending", r)
            ask_id = r.structured_content["ask_id"]
            await anyio.to_thread.run_sync(lambda: self.daemon.submit(ask_id, QUESTION_ANSWER))
            again = await session.call_tool("ask_user_question", args, read_timeout_seconds=CLIENT_LIMIT_S)
            self.assertFalse(again.is_error, again)
            self.assertEqual(again.structured_content["outcome"], "answered", again.structured_content)
            self.assertEqual(again.structured_content["ask_id"], ask_id, "the same ask, not a new one")
            self.assertEqual([a["id"] for a in self.daemon.asks() if a["id"] not in before], [], "no new ask")

        self.run_session(body, {"ASKD_MAX_WAIT": "2"})

    def test_human_cancels(self):
        async def body(session):
            _, r = await self.answered(session, "ask_user_question", "questions",
                                       question_args(f"Cancel me ({self.ERA})?"),
                                       lambda i: self.daemon.cancel(i))
            self.assertRegex("\n".join(texts(r)), r"(?i)cancel")
            s = (r.structured_content if r.structured_content is not None else json_text(r)) or {}
            said = s.get("outcome") == "cancelled" or "CANCEL" in str((s.get("error") or {}).get("code", "")).upper()
            self.assertTrue(said, f"the result says cancelled: {r}")
            if r.is_error:
                self.assertTrue((r.structured_content or {}).get("error", {}).get("code"), r)

        self.run_session(body)

    def test_client_abort_leaves_the_ask_pending(self):
        async def body(session):
            before = [a["id"] for a in self.daemon.asks()]
            holder = {}
            async with anyio.create_task_group() as tg:
                scope = anyio.CancelScope()

                async def the_call():
                    with scope:
                        await session.call_tool("ask_user_question", question_args(f"Abort me ({self.ERA})?"))
                        holder["returned"] = True

                tg.start_soon(the_call)
                holder["ask"] = await anyio.to_thread.run_sync(
                    lambda: self.daemon.wait_for_pending("questions", before))
                scope.cancel()  # the user aborts the turn: the SDK sends notifications/cancelled
            self.assertNotIn("returned", holder)
            ask_id = holder["ask"]["id"]
            view = {}
            for _ in range(100):
                view = await anyio.to_thread.run_sync(lambda: self.daemon.view(ask_id))
                if view.get("awaited") is False:
                    break
                await anyio.sleep(0.1)
            self.assertEqual(view["state"], "pending")
            self.assertIs(view["awaited"], False, "the cancelled call no longer counts as waiting")
            await anyio.to_thread.run_sync(lambda: self.daemon.submit(ask_id, QUESTION_ANSWER))
            got = await session.call_tool("await_answer", {"ask_id": ask_id}, read_timeout_seconds=CLIENT_LIMIT_S)
            self.assertFalse(got.is_error, got)
            self.assertEqual(got.structured_content["outcome"], "answered")

        self.run_session(body)


class LegacyEra(Scenarios, unittest.TestCase):
    """``initialize`` with 2025-11-25, as ``ClientSession.initialize()`` sends it."""

    ERA = "legacy"


class ModernEra(Scenarios, unittest.TestCase):
    """``server/discover`` with 2026-07-28: clientInfo travels in every request's ``_meta``."""

    ERA = "modern"


if __name__ == "__main__":
    unittest.main()
