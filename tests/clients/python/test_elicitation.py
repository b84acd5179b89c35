"""Answering in the client (clients.md §3) with the official Python SDK (``mcp==2.3.0``).

A ``ClientSession`` with an ``elicitation_callback`` declares form elicitation at
``initialize``; an ``ask_user_question`` call then reaches the callback as a form, while the
ask is in askd's inbox too. The callback plays the human: it answers, declines, or leaves
the form open while the page answers (the server must withdraw it). Helpers (the daemon's
API, the adapter's environment) come from ``test_sdk.py``.

Run: ``python3 -m unittest discover -s tests/clients/python`` (see test_sdk.py).
"""

from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

import anyio
import mcp_types as types
from mcp import ClientSession
from mcp.client.stdio import stdio_client

import json

from test_sdk import BINARY, CLIENT, FIXTURE, Daemon, Scenarios, first_leaf, question_args, stop_daemon


class Elicitation(unittest.TestCase):
    ERA = "legacy"
    # The adapter's environment and the human's side, as the SDK suite has them (not its
    # scenarios).
    server = Scenarios.server
    human = Scenarios.human

    @classmethod
    def setUpClass(cls):
        if not BINARY.exists():
            raise unittest.SkipTest(f"{BINARY} is missing: build askd first (or set ASKD_BIN)")
        cls.home = Path(tempfile.mkdtemp(prefix="askd-py-elicit-"))
        cls.daemon = None

    @classmethod
    def tearDownClass(cls):
        stop_daemon(cls.home)

    def with_form(self, callback, body):
        """Runs ``body(session)`` in an adapter session whose client shows forms via ``callback``."""
        with tempfile.TemporaryFile(mode="w+") as errlog:

            async def main():
                async with stdio_client(self.server(), errlog=errlog) as (read, write):
                    async with ClientSession(
                        read, write, client_info=CLIENT, elicitation_callback=callback
                    ) as session:
                        await session.initialize()
                        if type(self).daemon is None:
                            type(self).daemon = await anyio.to_thread.run_sync(Daemon, self.home)
                        await body(session)

            try:
                anyio.run(main)
            except BaseExceptionGroup as group:
                raise first_leaf(group) from None

    def pending_ids(self) -> list[str]:
        return [] if self.daemon is None else [a["id"] for a in self.daemon.asks("all")]

    def test_elicitation_form_answer_returns_surface_client_form(self):
        seen = {}

        async def callback(context, params):
            seen["params"] = params
            # The inbox shows the ask while the form is open.
            pending = await anyio.to_thread.run_sync(lambda: self.daemon.wait_for_pending("questions", []))
            seen["pending"] = pending
            return types.ElicitResult(action="accept", content={"db": "SQLite"})

        async def body(session):
            result = await session.call_tool(
                "ask_user_question", question_args("Which database, Python form?"), read_timeout_seconds=30
            )
            self.assertFalse(result.is_error, result)
            sc = result.structured_content
            self.assertEqual(sc["outcome"], "answered")
            self.assertEqual(sc["surface"], "client-form")
            self.assertEqual(sc["answers"], [{"id": "db", "selected": ["SQLite"]}])
            p = seen["params"]
            self.assertEqual(p.mode, "form")
            self.assertIn("Which database, Python form?", p.message)
            self.assertIn(seen["pending"]["id"], p.message)  # the page URL /a/<id>
            one_of = p.requested_schema["properties"]["db"]["oneOf"]
            self.assertEqual([o["const"] for o in one_of], ["PostgreSQL (Recommended)", "SQLite"])
            view = await anyio.to_thread.run_sync(lambda: self.daemon.view(seen["pending"]["id"]))
            self.assertEqual(view["state"], "settled")
            self.assertEqual(view["result"]["surface"], "client-form")

        self.with_form(callback, body)

    def test_elicitation_decline_settles_cancelled(self):
        async def callback(context, params):
            await anyio.sleep(1.3)  # a human reads the form before declining it
            return types.ElicitResult(action="decline")

        async def body(session):
            before = self.pending_ids()
            result = await session.call_tool(
                "ask_user_question", question_args("Which database, declined?"), read_timeout_seconds=30
            )
            self.assertTrue(result.is_error, result)
            asks = await anyio.to_thread.run_sync(lambda: self.daemon.asks("all"))
            ask = next(a for a in asks if a["id"] not in before)
            view = await anyio.to_thread.run_sync(lambda: self.daemon.view(ask["id"]))
            self.assertEqual((view["state"], view["outcome"]), ("settled", "cancelled"))

        self.with_form(callback, body)

    def test_elicitation_page_answer_while_the_form_is_open(self):
        withdrawn = anyio.Event()

        async def callback(context, params):
            try:
                await anyio.sleep(60)  # the human looks at the page instead
            except anyio.get_cancelled_exc_class():
                withdrawn.set()
                raise
            return types.ElicitResult(action="cancel")

        async def body(session):
            before = self.pending_ids()
            out = {}

            async def the_call():
                out["result"] = await session.call_tool(
                    "ask_user_question", question_args("Which database, page wins?"), read_timeout_seconds=30
                )

            async with anyio.create_task_group() as tg:
                tg.start_soon(the_call)
                await self.human(
                    "questions",
                    before,
                    lambda i: self.daemon.submit(i, {"answers": [{"id": "db", "selected": ["SQLite"]}]}),
                )
            sc = out["result"].structured_content
            self.assertEqual(sc["surface"], "page")
            with anyio.fail_after(10):
                await withdrawn.wait()

        self.with_form(callback, body)

    def test_elicitation_cancel_keeps_the_ask_pending_then_the_page_answers(self):
        async def callback(context, params):
            return types.ElicitResult(action="cancel")

        async def body(session):
            before = self.pending_ids()
            out = {}

            async def the_call():
                out["result"] = await session.call_tool(
                    "ask_user_question", question_args("Which database, dismissed?"), read_timeout_seconds=30
                )

            async def the_page():
                pending = await anyio.to_thread.run_sync(lambda: self.daemon.wait_for_pending("questions", before))
                await anyio.sleep(0.6)
                view = await anyio.to_thread.run_sync(lambda: self.daemon.view(pending["id"]))
                self.assertEqual(view["state"], "pending")  # dismissed, not answered
                await anyio.to_thread.run_sync(
                    lambda: self.daemon.submit(pending["id"], {"answers": [{"id": "db", "selected": ["SQLite"]}]})
                )

            async with anyio.create_task_group() as tg:
                tg.start_soon(the_call)
                tg.start_soon(the_page)
            sc = out["result"].structured_content
            self.assertEqual(sc["surface"], "page")
            self.assertEqual(sc["answers"], [{"id": "db", "selected": ["SQLite"]}])

        self.with_form(callback, body)

    def test_elicitation_survey_walked_by_forms_banks_each_answer(self):
        answers = iter([{"answer": "a"}, {"answer": "GraphQL"}, {"answer": ["a", "b"]}])
        banked_before_each = []
        before = []

        async def callback(context, params):
            # The banked entries in the daemon when each form arrives: one more every time.
            def banked():
                ask = next(a for a in self.daemon.asks("all") if a["id"] not in before)
                return [e["id"] for e in self.daemon.view(ask["id"])["banked"]]

            banked_before_each.append(await anyio.to_thread.run_sync(banked))
            await anyio.sleep(0.05)
            return types.ElicitResult(action="accept", content=next(answers))

        async def body(session):
            before.extend(self.pending_ids())
            args = json.loads(FIXTURE.read_text())
            result = await session.call_tool("ask_survey", args, read_timeout_seconds=60)
            self.assertFalse(result.is_error, result)
            sc = result.structured_content
            self.assertEqual(sc["outcome"], "answered")
            self.assertEqual(sc["surface"], "client-form")
            self.assertEqual([a["id"] for a in sc["answers"]], ["scope", "api", "ship"])
            self.assertEqual(banked_before_each, [[], ["scope"], ["scope", "api"]])
            view = await anyio.to_thread.run_sync(lambda: self.daemon.view(sc["ask_id"]))
            self.assertEqual([e["id"] for e in view["banked"]], ["scope", "api", "ship"])
            self.assertEqual(view["state"], "settled")

        self.with_form(callback, body)


if __name__ == "__main__":
    unittest.main()
