"""Issue 33: askd's asks as MCP Tasks, driven by the official Python SDK (PyPI ``mcp==2.3.0``)
over stdio, in both eras of Tasks:

- 2025-11-25 (``initialize``): the SDK's own task types (``CallToolRequestParams.task``,
  ``CreateTaskResult``, ``GetTaskRequest``, ``GetTaskPayloadRequest``, ``ListTasksRequest``,
  ``CancelTaskRequest``) sent through ``ClientSession.send_request``, whose results the SDK
  validates against that revision's schema.
- 2026-07-28 (``server/discover``): the SDK's extension API — the
  ``io.modelcontextprotocol/tasks`` extension advertised, a ``ResultClaim`` for
  ``resultType: "task"`` — then ``tasks/get`` until the result is inline, and
  ``tasks/update`` carrying an answer given in the client's form.

The human answers through askd's HTTP API (the ``Daemon`` helper of ``test_sdk``).
"""

from __future__ import annotations

import os
import tempfile
import unittest
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp import ClientSession
from mcp.client.extension import ResultClaim
from mcp.client.stdio import StdioServerParameters, stdio_client

from test_sdk import BINARY, CLIENT, Daemon, first_leaf, question_args, stop_daemon, QUESTION_ANSWER

TASKS = "io.modelcontextprotocol/tasks"


class TaskHandle(types.Result):
    """The 2026-07-28 ``CreateTaskResult`` (``resultType: "task"``)."""

    result_type: Literal["task"]
    task_id: str
    status: str
    poll_interval_ms: int | None = None


class TaskState(types.Result):
    """A 2026-07-28 ``tasks/get`` result: the task, with its result or input requests."""

    task_id: str
    status: str
    result: dict[str, Any] | None = None
    input_requests: dict[str, Any] | None = None


class UpdateParams(types.RequestParams):
    task_id: str
    input_responses: dict[str, Any]


class UpdateTask(types.Request[UpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    params: UpdateParams


class Ack(types.Result):
    pass


async def _unused_resolve(claimed, ctx):  # the test polls the handle itself (allow_claimed)
    raise AssertionError("not resolved through the claim")


class Base(unittest.TestCase):
    ERA = "legacy"

    @classmethod
    def setUpClass(cls):
        if not BINARY.exists():
            raise unittest.SkipTest(f"{BINARY} is missing: build askd first (or set ASKD_BIN)")
        cls.home = Path(tempfile.mkdtemp(prefix=f"askd-py-tasks-{cls.ERA}-"))
        cls.daemon = None

    @classmethod
    def tearDownClass(cls):
        stop_daemon(cls.home)

    def server(self) -> StdioServerParameters:
        env = {
            "ASKD_HOME": str(self.home),
            "ASKD_NO_BROWSER": "1",
            "ASKD_LISTEN": "127.0.0.1:0",
            "PATH": f"{BINARY.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        }
        workspace = self.home / "workspace"
        workspace.mkdir(exist_ok=True)
        return StdioServerParameters(command="askd", args=["mcp"], env=env, cwd=workspace)

    @staticmethod
    def session_kwargs(era: str) -> dict:
        if era == "legacy":
            return {}
        claim = ResultClaim(result_type="task", model=TaskHandle, resolve=_unused_resolve)
        return {
            "extensions": {TASKS: {}},
            "result_claims": {TASKS: [claim]},
            # Declares form elicitation: askd's form comes as the task's input request.
            "elicitation_callback": _fail_if_called,
        }

    def run_sessions(self, *bodies):
        """Runs each ``(era, body)`` — ``body(session)`` — in its own adapter process, one
        after the other: ``legacy`` speaks 2025-11-25 (``initialize``), ``modern``
        2026-07-28 (``server/discover``) with the tasks extension."""

        async def main():
            for era, body in bodies:
                with tempfile.TemporaryFile(mode="w+") as errlog:
                    async with stdio_client(self.server(), errlog=errlog) as (read, write):
                        kwargs = self.session_kwargs(era)
                        async with ClientSession(read, write, client_info=CLIENT, **kwargs) as session:
                            if era == "legacy":
                                await session.initialize()
                            else:
                                await session.discover()
                            if type(self).daemon is None:
                                type(self).daemon = await anyio.to_thread.run_sync(Daemon, self.home)
                            await body(session)

        try:
            anyio.run(main)
        except BaseExceptionGroup as group:
            raise first_leaf(group) from None

    async def answer(self, ask_id: str, body: dict):
        await anyio.to_thread.run_sync(lambda: self.daemon.submit(ask_id, body))

    @staticmethod
    async def start(session: ClientSession, question: str) -> TaskHandle:
        """An ask started as a 2026-07-28 task through the SDK's claim of ``resultType: task``."""
        handle = await session.call_tool("ask_user_question", question_args(question), allow_claimed=True)
        assert isinstance(handle, TaskHandle), handle
        return handle


class LegacyTasks(Base):
    """2025-11-25: the SDK's own task types. The SDK's session validates a 2025-11-25
    ``tools/call`` result as a ``CallToolResult`` only, so it cannot start a task itself in
    that revision; the task is started by a 2026-07-28 client, and 2025-11-25 clients in
    other processes poll it, fetch its result, list and cancel."""

    ERA = "legacy"

    async def get(self, session: ClientSession, task_id: str) -> types.GetTaskResult:
        return await session.send_request(
            types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id)), types.GetTaskResult
        )

    async def result(self, session: ClientSession, task_id: str) -> types.CallToolResult:
        return await session.send_request(
            types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task_id)),
            types.CallToolResult,
            request_read_timeout_seconds=30,
        )

    async def listed(self, session: ClientSession) -> list[str]:
        r = await session.send_request(types.ListTasksRequest(), types.ListTasksResult)
        return [t.task_id for t in r.tasks]

    def test_a_task_is_answered_on_the_page_and_another_process_fetches_its_result(self):
        made = {}

        async def first(session):
            made["id"] = (await self.start(session, "Which database, as a task?")).task_id

        async def second(session):
            task_id = made["id"]
            got = await self.get(session, task_id)
            self.assertEqual(got.status, "working")
            self.assertIsNone(got.ttl)
            self.assertEqual(got.poll_interval, 2000)
            # Another process's session: its task is not this caller's.
            self.assertNotIn(task_id, await self.listed(session))
            out = {}
            async with anyio.create_task_group() as tg:

                async def wait_result():
                    out["r"] = await self.result(session, task_id)

                tg.start_soon(wait_result)
                await anyio.sleep(0.3)
                await self.answer(task_id, QUESTION_ANSWER)
            r = out["r"]
            self.assertEqual(r.structured_content["outcome"], "answered")
            self.assertEqual(r.structured_content["answers"][0]["selected"], ["PostgreSQL (Recommended)"])
            self.assertEqual(r.meta["io.modelcontextprotocol/related-task"]["taskId"], task_id)
            self.assertEqual((await self.get(session, task_id)).status, "completed")

        self.run_sessions(("modern", first), ("legacy", second))

    def test_cancel_withdraws_the_ask(self):
        made = {}

        async def first(session):
            made["id"] = (await self.start(session, "Cancel this task?")).task_id

        async def second(session):
            r = await session.send_request(
                types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=made["id"])),
                types.CancelTaskResult,
            )
            self.assertEqual(r.status, "cancelled")
            view = await anyio.to_thread.run_sync(lambda: self.daemon.view(made["id"]))
            self.assertEqual(view["outcome"], "aborted")

        self.run_sessions(("modern", first), ("legacy", second))


class ModernTasks(Base):
    """2026-07-28: the tasks extension through the SDK's extension API."""

    ERA = "modern"

    async def get(self, session: ClientSession, task_id: str) -> TaskState:
        return await session.send_request(
            types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id)), TaskState
        )

    def test_a_task_takes_an_in_client_answer_through_tasks_update(self):
        async def body(session):
            handle = await self.start(session, "Which database, 2026 task?")
            self.assertEqual(handle.poll_interval_ms, 2000)
            state = await self.get(session, handle.task_id)
            self.assertEqual(state.status, "input_required", state)
            key, request = next(iter(state.input_requests.items()))
            self.assertEqual(request["method"], "elicitation/create")
            props = request["params"]["requestedSchema"]["properties"]
            self.assertIn("db", props)
            await session.send_request(
                UpdateTask(
                    params=UpdateParams(
                        task_id=handle.task_id,
                        input_responses={key: {"action": "accept", "content": {"db": "SQLite"}}},
                    )
                ),
                Ack,
            )
            done = await self.get(session, handle.task_id)
            self.assertEqual(done.status, "completed", done)
            content = done.result["structuredContent"]
            self.assertEqual(content["surface"], "client-form")
            self.assertEqual(content["answers"][0]["selected"], ["SQLite"])

        self.run_sessions(("modern", body))

    def test_a_task_answered_on_the_page_completes_with_its_result(self):
        async def body(session):
            handle = await self.start(session, "Which database, on the page?")
            await self.answer(handle.task_id, QUESTION_ANSWER)
            done = await self.get(session, handle.task_id)
            self.assertEqual(done.status, "completed", done)
            self.assertEqual(done.result["structuredContent"]["surface"], "page")

        self.run_sessions(("modern", body))


async def _fail_if_called(context, params):
    # 2026-07-28 sends no server request: the form arrives as the task's input request.
    raise AssertionError("askd sent an elicitation request to a 2026-07-28 client")


if __name__ == "__main__":
    unittest.main()
