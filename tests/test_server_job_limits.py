"""The job API's guards are the CLI's, and the text and ids it takes are the ones that read plainly.

One shared check for each limit (the cores a run's games may use, the length and characters of
an event or engine name, the ASCII digits of an id), tested pure; then over real sockets: the
daemon in this trio process with the dashboard (the API and the new-run form), and once as a
``santorini serve --max-queued`` subprocess.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import trio
from click.testing import CliRunner

from santorini_server.cli import main
from santorini_server.records import (
    MAX_LABEL,
    ArchiveWriter,
    RecordError,
    check_text,
    clean_text,
    format_sgn,
    parse_sgn,
)
from santorini_server.referee.engine_spec import parse_engine_spec
from santorini_server.server.daemon import ServeOptions
from santorini_server.server.names import parse_id
from santorini_server.server.runs import RUNS_DIR, QueueFull, index_game, queue_run, run_settings, upgrade_settings
from santorini_server.server.store import Store
from santorini_server.tournament.config import Settings, TournamentConfig, check_concurrency, check_event
from santorini_server.tournament.output import ARCHIVE

from .test_server_http_limits import in_process
from .test_server_run_standings import a_record
from .test_server_serve import Daemon

CORES = os.cpu_count() or 1
#: Invisible or reordering characters (Unicode category Cf): bidi overrides, isolates and marks,
#: zero-width space and joiner, the byte-order mark, the soft hyphen.
FORMAT_CHARS = ["\u202e", "\u202d", "\u2066", "\u200f", "\u200b", "\u200d", "\ufeff", "\u00ad"]
#: Spellings ``int`` reads as 1 that are not an id: Arabic-Indic and full-width digits, a sign, spaces.
NOT_IDS = ["\u0661", "\uff11", "+1", " 1", "1 "]


# --- the shared checks (pure) --------------------------------------------------------------------


def test_concurrency_beyond_the_cores_is_refused_with_the_way_round_where_there_is_one() -> None:
    check_concurrency(4, 4, None)
    with pytest.raises(ValueError, match=r"^concurrency 5 is more than the 4 cores of this machine: .*unfairly$"):
        check_concurrency(5, 4, None)
    with pytest.raises(ValueError, match=r"unfairly \(add --force-concurrency to do it anyway\)$"):
        check_concurrency(5, 4, "--force-concurrency")


@pytest.mark.parametrize("char", [*FORMAT_CHARS, "\u2028", "\u2029", "\x00"])
def test_format_and_control_characters_are_refused_in_events_and_names_and_cleaned_from_engine_text(char: str) -> None:
    text = f"Bot{char}A"
    kind = "format" if char in FORMAT_CHARS else "control"
    with pytest.raises(RecordError, match=rf"^tag Event holds a {kind} character .* at index 3"):
        check_event(text)
    with pytest.raises(ValueError, match=f"engine name holds a {kind} character"):
        parse_engine_spec(f"bundled=random name={text}")
    assert clean_text(text) == "Bot A"  # an engine's own words: made storable, not refused


@pytest.mark.parametrize("char", [*FORMAT_CHARS, "\u2028", "\x00"])
def test_a_record_holding_a_format_character_still_reads_and_one_holding_a_control_character_does_not(char: str) -> None:
    text = f"Bot{char}A"
    sgn = format_sgn(a_record(1, "a", "b")).replace('[Event "t"]', f'[Event "{text}"]')
    if char in FORMAT_CHARS:  # written before the rule: kept, not lost as damage
        assert check_text("comment", text, braces=False) == text
        assert parse_sgn(sgn)[0].tag("Event") == text
    else:
        with pytest.raises(RecordError):
            check_text("comment", text, braces=False)
        with pytest.raises(ValueError, match="control character"):
            parse_sgn(sgn)


def test_events_and_engine_names_are_at_most_200_characters_and_the_refusal_does_not_quote_them() -> None:
    assert MAX_LABEL == 200
    assert check_event("e" * MAX_LABEL) == "e" * MAX_LABEL
    assert parse_engine_spec(f"bundled=random name={'n' * MAX_LABEL}").name == "n" * MAX_LABEL
    with pytest.raises(RecordError, match=r"^tag Event is 1,048,576 characters long: at most 200$"):
        check_event("e" * 2**20)
    with pytest.raises(ValueError, match=r"^engine name is 201 characters long: at most 200$"):
        parse_engine_spec(f"bundled=random name={'n' * 201}")
    with pytest.raises(ValueError, match="engine name is 300 characters long"):  # the program's file name
        parse_engine_spec(f"cmd=/bin/{'p' * 300}")
    settings = Settings(engines=["random", "greedy"], event="e" * 201)  # a TOML file, tournament.json or the API
    with pytest.raises(ValueError, match="tag Event is 201 characters long"):
        TournamentConfig.from_settings(settings)


def test_an_id_is_ascii_digits_only() -> None:
    assert parse_id("1") == 1 and parse_id("0042") == 42 and parse_id("9" * 23) == int("9" * 23)
    assert {int(text) for text in NOT_IDS} == {1}  # what the routes took for game 1
    for text in [*NOT_IDS, "", "-1", "1_0", "1.0", "\u00b9", "9" * 31]:
        with pytest.raises(ValueError, match="not an id"):
            parse_id(text)


def test_the_queue_counts_runs_waiting_and_refuses_one_beyond(tmp_path: Path) -> None:
    settings = Settings(engines=["random name=a", "greedy name=b"])
    with Store(tmp_path / "data", create=True) as store:
        store.create_run("ladder", {"tc": "5+0.05"})  # the ladder's: not a submitted run
        playing = queue_run(store, "match", settings, 2)
        store.set_run_state(playing.id, "running")  # the run being played no longer waits
        queue_run(store, "match", settings, 2)
        waiting = queue_run(store, "match", settings, 2)
        with pytest.raises(QueueFull, match=r"^2 runs are queued already, .*serve --max-queued 2"):
            queue_run(store, "match", settings, 2)
        store.set_run_state(waiting.id, "cancelled")
        assert queue_run(store, "match", settings, 2).state == "queued"
        assert [run.state for run in store.runs()] == ["queued", "running", "queued", "cancelled", "queued"]


def test_a_submitted_run_beyond_the_cores_is_refused(tmp_path: Path) -> None:
    with Store(tmp_path / "data", create=True) as store:
        store.add_local_bot("a", "random")
        store.add_local_bot("b", "greedy")
        for name in ("r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8"):
            store.add_remote_bot(name)
        assert run_settings(store, {"engines": ["a", "b"], "concurrency": CORES})[1] == "match"
        with pytest.raises(ValueError, match=f"concurrency {CORES + 1} is more than the {CORES} cores"):
            run_settings(store, {"engines": ["a", "b"], "concurrency": CORES + 1})
        with pytest.raises(ValueError, match=f"concurrency {CORES + 1} is more than the {CORES} cores"):
            run_settings(store, {"engines": ["a", "r1"], "concurrency": CORES + 1})  # one engine runs here
        # remote bots think on their own machines: the bound is the games they can play at once
        remote = [f"r{k}" for k in range(1, 9)]
        assert run_settings(store, {"engines": remote, "concurrency": 8})[1] == "tournament"
        assert run_settings(store, {"engines": remote})[1] == "tournament"  # 0: the cores, whatever they are
        with pytest.raises(ValueError, match=r"^concurrency 9 is more than the run's 8 remote bots \(each plays one"):
            run_settings(store, {"engines": remote, "concurrency": 9})


def test_a_remote_bot_is_named_in_the_run_not_given_a_program(tmp_path: Path) -> None:
    with Store(tmp_path / "data", create=True) as store:
        store.add_local_bot("a", "random")
        store.add_remote_bot("r1")
        settings, _ = run_settings(store, {"engines": ["a", "r1"]})
        assert settings.engines[1] == "r1" and settings.remote == ["r1"]
        config = TournamentConfig.from_settings(settings)
        assert config.remote == {"r1"} and config.specs[1].argv == () and config.specs[0].argv
        run = queue_run(store, "match", settings, 2)
        assert run.bot_names == ["a", "r1"]
        with pytest.raises(ValueError, match=r"^unknown setting 'remote' \(the server sets it\)"):
            run_settings(store, {"engines": ["a", "r1"], "remote": ["a"]})  # a local bot is never leased
    legacy = Settings(engines=["random name=a", "cmd=santorini-remote-bot name=r1"])
    assert upgrade_settings(legacy).engines == ["random name=a", "r1"] and upgrade_settings(legacy).remote == ["r1"]
    assert upgrade_settings(settings) is settings


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-j", str(CORES + 1)], f"Error: concurrency {CORES + 1} is more than the {CORES} cores of this machine: "
                                 "engines would share cores and lose on time unfairly (add --force-concurrency to do it "
                                 "anyway)\n"),
        (["--event", "e" * 201], "Error: Invalid value for '--event': tag Event is 201 characters long: at most 200\n"),
        (["--event", "a\u202eb"], "Error: Invalid value for '--event': tag Event holds a format character '\\u202e'"),
        (["-e", "bundled=random name=\u202eb"], "Error: engine name holds a format character '\\u202e' at index 0"),
    ],
)
def test_the_cli_refuses_what_the_api_refuses(tmp_path: Path, args: list[str], message: str) -> None:
    out = tmp_path / "x"
    result = CliRunner().invoke(main, ["tournament", "-e", "random", "-e", "greedy", *args, "--out", str(out)])
    assert result.exit_code in (1, 2), result.output
    assert result.stderr.splitlines()[-1].startswith(message.rstrip("\n")) and not out.exists(), result.stderr


# --- over HTTP: the daemon in this process, with the dashboard -----------------------------------


@dataclass
class Served:
    http: httpx.AsyncClient
    auth: dict[str, str]
    token: str


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    """A daemon with a finished run 1 (game 1 indexed), two remote bots never connected (a run
    of theirs stays running, waiting for them) and room for two queued runs."""
    data = tmp_path / "data"
    with Store(data, create=True) as store:
        store.add_local_bot("alpha", "random")
        store.add_local_bot("beta", "greedy")
        store.add_remote_bot("r1")
        store.add_remote_bot("r2")
        run = store.create_run("match", {"engines": ["random name=alpha", "greedy name=beta"], "rounds": 1})
        store.set_run_state(run.id, "running")
        archive = data / RUNS_DIR / str(run.id) / ARCHIVE
        archive.parent.mkdir(parents=True)
        with ArchiveWriter(archive) as writer:
            record = a_record(1, "alpha", "beta")
            index_game(store, run.id, record, writer.append(record))
        store.set_run_state(run.id, "finished")
    options = ServeOptions(
        data=data, http=("127.0.0.1", 0), bots=("127.0.0.1", 0), drain_timeout=0.2, reconnect_grace=60, max_queued=2
    )
    async with in_process(options) as url:
        token = (data / "admin.token").read_text().strip()
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            yield Served(http, {"Authorization": f"Bearer {token}"}, token)


async def signed_in_form(served: Served) -> str:
    """Sign the client in to the dashboard; the CSRF token of its new-run form."""
    page = (await served.http.get("/signin")).text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page)
    assert csrf is not None
    signed = await served.http.post("/signin", data={"csrf": csrf.group(1), "token": served.token, "next": "/runs/new"})
    assert signed.status_code == 303
    form = re.search(r'name="csrf" value="([^"]+)"', (await served.http.get("/runs/new")).text)
    assert form is not None
    return form.group(1)


async def test_the_api_and_the_form_refuse_a_run_beyond_the_cores_and_long_or_invisible_text(served: Served) -> None:
    csrf = await signed_in_form(served)
    cases = {
        f'{{"engines": ["alpha", "beta"], "concurrency": {CORES + 1}}}':
            f"concurrency {CORES + 1} is more than the {CORES} cores",
        '{"engines": ["r1", "r2"], "concurrency": 3}': "concurrency 3 is more than the run's 2 remote bots",
        '{"engines": ["r1", "r2"], "event": "' + "e" * 201 + '"}': "tag Event is 201 characters long: at most 200",
        '{"engines": ["r1", "r2"], "event": "' + "e" * 2**19 + '"}': "tag Event is 524,288 characters long",
        '{"engines": ["r1", "r2"], "event": "paypal\\u202eliamg"}': "tag Event holds a format character '\\u202e'",
        '{"engines": ["r1", "r2"], "event": "a\\u200bb"}': "tag Event holds a format character '\\u200b'",
    }
    for body, message in cases.items():
        answer = await served.http.post("/api/runs", content=body, headers={**served.auth, "Content-Type": "application/json"})
        assert answer.status_code == 400 and message in answer.json()["error"], (body[:80], answer.text[:300])
        assert len(answer.content) < 1000  # the refusal does not quote half a megabyte back
    form = {"csrf": csrf, "engines": ["r1", "r2"]}
    over = await served.http.post("/runs/new", data={**form, "engines": ["alpha", "beta"], "concurrency": str(CORES + 1)})
    assert over.status_code == 400 and f"concurrency {CORES + 1} is more than the {CORES} cores" in over.text
    long = await served.http.post("/runs/new", data={**form, "event": "e" * 201})
    assert long.status_code == 400 and "tag Event is 201 characters long" in long.text
    for number in ("\u0661", "--5", "9" * 20):  # a whole number is ASCII digits: a 400 naming the field, never a 500
        bad = await served.http.post("/runs/new", data={**form, "rounds": number})
        assert bad.status_code == 400 and "rounds: " in bad.text and "is not a whole number" in bad.text, number
    assert [run["id"] for run in (await served.http.get("/api/runs")).json()] == [1]  # nothing was queued
    made = await served.http.post("/api/runs", json={"engines": ["r1", "r2"], "concurrency": 2, "event": "e" * 200},
                                  headers=served.auth)
    assert made.status_code == 201, made.text


async def test_beyond_max_queued_a_submission_is_503_until_a_place_is_free(served: Served) -> None:
    csrf = await signed_in_form(served)
    body = {"engines": ["r1", "r2"], "tc": "60+1"}
    first = await served.http.post("/api/runs", json=body, headers=served.auth)
    assert first.status_code == 201
    with trio.fail_after(10):  # taken up: it waits for its remote bots, running, not queued
        while (await served.http.get(f"/api/runs/{first.json()['id']}")).json()["state"] != "running":
            await trio.sleep(0.02)
    queued = [await served.http.post("/api/runs", json=body, headers=served.auth) for _ in range(2)]
    assert [answer.status_code for answer in queued] == [201, 201]
    full = await served.http.post("/api/runs", json=body, headers=served.auth)
    assert full.status_code == 503
    assert full.json() == {"error": "2 runs are queued already, the most this server takes (serve --max-queued 2): "
                                    "submit again when one has started, or cancel one"}
    form = await served.http.post("/runs/new", data={"csrf": csrf, "engines": ["r1", "r2"]})
    assert form.status_code == 503 and "2 runs are queued already" in form.text
    bad = await served.http.post("/api/runs", json={**body, "rounds": "x"}, headers=served.auth)
    assert bad.status_code == 400  # a bad run is told so even while the queue is full
    cancelled = await served.http.post(f"/api/runs/{queued[1].json()['id']}/cancel", headers=served.auth)
    assert cancelled.status_code == 200
    again = await served.http.post("/api/runs", json=body, headers=served.auth)
    assert again.status_code == 201
    states = [run["state"] for run in (await served.http.get("/api/runs")).json()]
    assert states == ["finished", "running", "queued", "cancelled", "queued"]


async def test_ids_in_paths_are_ascii_digits_else_404(served: Served) -> None:
    http = served.http
    assert (await http.get("/api/runs/1")).status_code == 200
    assert (await http.get("/api/games/1")).status_code == 200
    assert (await http.get("/runs/1")).status_code == 200
    assert (await http.get("/games/1")).status_code == 200
    for text in NOT_IDS:
        for path in (f"/api/runs/{text}", f"/api/games/{text}", f"/api/games/{text}.sgn", f"/runs/{text}", f"/games/{text}"):
            answer = await http.get(path)
            assert answer.status_code == 404, (path, answer.status_code)
        cancel = await http.post(f"/api/runs/{text}/cancel", headers=served.auth)
        assert cancel.status_code == 404, (text, cancel.status_code)  # not run 1's 409 (finished)
    csrf = await signed_in_form(served)
    assert (await http.post("/runs/\u0661/cancel", data={"csrf": csrf})).status_code == 404
    assert (await http.get("/bots/\u202ealpha")).status_code == 404
    assert (await http.get("/bots/alpha")).status_code == 200


# --- the option, through the CLI -------------------------------------------------------------------


def test_serve_max_queued_reaches_the_api(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with Store(data, create=True) as store:
        store.add_remote_bot("r1")
        store.add_remote_bot("r2")
    refused = CliRunner().invoke(main, ["serve", "--data", str(data), "--max-queued", "0"])
    assert refused.exit_code == 2 and "--max-queued" in refused.stderr
    daemon = Daemon(data, "--max-queued", "1", "--reconnect-grace", "60", "--drain-timeout", "0.2")
    try:
        auth = {"Authorization": f"Bearer {(data / 'admin.token').read_text().strip()}"}
        body = {"engines": ["r1", "r2"]}
        assert daemon.http.post("/api/runs", json=body, headers=auth).status_code == 201
        for _ in range(500):  # at most 10 s: the first run taken up, running
            if daemon.http.get("/api/runs/1").json()["state"] == "running":
                break
            time.sleep(0.02)
        assert daemon.http.post("/api/runs", json=body, headers=auth).status_code == 201
        full = daemon.http.post("/api/runs", json=body, headers=auth)
        assert full.status_code == 503 and "serve --max-queued 1" in full.json()["error"]
    finally:
        assert daemon.stop() == 0
