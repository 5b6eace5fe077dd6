"""The documents explain themselves and say what the code does.

* No file of the repository cites a document outside it, and every "SPEC.md section N.M" (and
  every "section N" inside SPEC.md and the guides) names a section that exists; sections are
  cited by number, never by a quoted title.
* The SPS and STN regular expressions printed in SPEC.md (and copied in the authors' guide) accept
  exactly what the referee's parsers accept as well-formed, in Python and in POSIX ``grep -E``
  (what a C engine's ``regcomp`` uses).
* SPEC.md's ``santorini check`` summary lines are the ones the command prints.
* The game transcript of docs/engine-authors.md is a legal game that ends as its ``result`` says.
"""

from __future__ import annotations

import functools
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from santorini_server.cli import main
from santorini_server.rules import (
    GODS,
    MalformedPositionError,
    MalformedTurnError,
    NotationError,
    Position,
    Transition,
    parse_sps,
    parse_stn,
)

from .test_c_example import C_EXAMPLE_SUMMARY

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "SPEC.md"
GUIDE = ROOT / "docs" / "engine-authors.md"

#: Documents that are not in the repository (design notes of the project's authors).  Spelled in
#: pieces so that this file does not cite them itself.
OUTSIDE_DOCUMENTS = re.compile(
    r"\b(?:" + "|".join(["protocol", "rules", "sei", "runner-anchors", "scale-out", "server", "style"]) + r")\.md\b"
    r"|" + re.escape("/work/" + "shared")
)
_NUM = r"\d+(?:\.\d+)*"
_NUMS = rf"{_NUM}(?:(?:, | and | or |-){_NUM})*"
#: "SPEC.md section 4.2", "SPEC.md sections 2 and 3", "SPEC.md's section 13.2", "SPEC.md 1.4".
SPEC_REFERENCE = re.compile(rf"SPEC\.md(?:'s)?,? (?:sections? )?({_NUMS})")
#: Inside SPEC.md and the guides every "section N" is one of SPEC.md's.
SECTION_REFERENCE = re.compile(rf"\bsections? ({_NUMS})")
#: A section cited by its quoted title instead of its number (after "SPEC.md", "see" or "section").
TITLE_REFERENCE = re.compile(r"SPEC\.md(?:[,:]? +\(?|[,:]? *\()[\"“]|\b(?:see|section) \"[A-Z]")
#: Files whose "section N" always means SPEC.md's.
SPEC_DOCUMENTS = ("SPEC.md", "README.md", "docs/")


def repository_text_files() -> Iterator[tuple[str, str]]:
    """(path, text) of every file git tracks or would track (ignored files left out)."""
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode()
    for name in sorted(set(filter(None, listing.split("\0")))):
        path = ROOT / name
        if not path.is_file():
            continue  # deleted in the work tree, not yet in the index
        data = path.read_bytes()
        if b"\0" in data:
            continue
        try:
            yield name, data.decode("utf-8")
        except UnicodeDecodeError:
            continue


def spec_sections() -> set[str]:
    """The numbers of SPEC.md's headings: ``1``, ``1.1``, ..., ``14.4``."""
    return set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", SPEC.read_text(encoding="utf-8"), re.M))


def cited_numbers(span: str) -> list[str]:
    """Every section a citation names; a range ``2-4`` names both ends and what lies between."""
    numbers: list[str] = []
    for part in re.split(r", | and | or ", span):
        low, _, high = part.partition("-")
        if high and "." not in low + high:
            numbers += [str(n) for n in range(int(low), int(high) + 1)]
        else:
            numbers += [low, high] if high else [low]
    return numbers


# --- references ------------------------------------------------------------------------------

def test_no_file_cites_a_document_outside_the_repository() -> None:
    found = [
        f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group()}"
        for name, text in repository_text_files()
        for m in OUTSIDE_DOCUMENTS.finditer(text)
    ]
    assert not found, "\n".join(found)


def test_every_cited_spec_section_exists_and_is_cited_by_number() -> None:
    sections = spec_sections()
    assert {"1", "1.7", "2.1", "3.4", "4", "4.6", "7", "14.4"} <= sections
    missing, by_title = [], []
    for name, text in repository_text_files():
        patterns = [SPEC_REFERENCE] + ([SECTION_REFERENCE] if name.startswith(SPEC_DOCUMENTS) else [])
        for pattern in patterns:
            for m in pattern.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                missing += [f"{name}:{line}: section {n}" for n in cited_numbers(m.group(1)) if n not in sections]
        by_title += [f"{name}:{text.count(chr(10), 0, m.start()) + 1}" for m in TITLE_REFERENCE.finditer(text)]
    assert not missing, "\n".join(missing)
    assert not by_title, "cite SPEC.md sections by number:\n" + "\n".join(by_title)


def test_the_checker_sees_a_wrong_number_and_a_title() -> None:
    """The scan above can fail: its patterns catch the mistakes they are for (spelled in pieces,
    so that this file does not make them)."""
    spec = "SPEC" + ".md"
    assert cited_numbers(SPEC_REFERENCE.findall(f"see {spec} section 4.9, and {spec} sections 2-4")[0]) == ["4.9"]
    assert cited_numbers("2-4 and 7") == ["2", "3", "4", "7"]
    assert "4.9" not in spec_sections()
    assert TITLE_REFERENCE.search(f'({spec}, "Clocks")') and TITLE_REFERENCE.search('(see ' + '"Failure handling")')
    assert OUTSIDE_DOCUMENTS.search("as " + "protocol" + ".md says") and not OUTSIDE_DOCUMENTS.search(spec)


def test_sections_are_numbered_in_order_and_all_in_the_contents() -> None:
    text = SPEC.read_text(encoding="utf-8")
    headings = re.findall(r"^(##|###) (.*)$", text, re.M)
    contents = text.split("## Contents", 1)[1].split("\n## ", 1)[0]
    top, sub = 0, 0
    for level, title in headings:
        if title == "Contents":
            continue
        if level == "##":
            top, sub = top + 1, 0
            expected = f"{top}. "
        else:
            sub += 1
            expected = f"{top}.{sub} "
        assert title.startswith(expected), f"heading {title!r}: expected number {expected.strip()}"
        assert re.search(rf"(?:^- |; |: ){re.escape(title)}(?:;|:|$)", contents, re.M), f"{title!r} is not in the Contents"


# --- the SPS and STN regexes -------------------------------------------------------------------

def printed_regex(document: Path, section: str) -> str:
    """The one-line regex printed after "The grammar as one regular expression" in ``section``."""
    text = document.read_text(encoding="utf-8")
    body = text.split(f"### {section} ", 1)[1].split("\n### ", 1)[0]
    m = re.search(r"The grammar as one regular expression.*?```\n(.*?)\n```", body, re.S)
    assert m is not None, f"no regex printed in section {section}"
    return m.group(1)


@functools.cache
def sps_regex() -> str:
    return printed_regex(SPEC, "2.1")


@functools.cache
def sps_regex_all_seats() -> str:
    """Section 15.4's regex: two, three or four seats (its first alternative is section 2.1's)."""
    return printed_regex(SPEC, "15.4")


@functools.cache
def stn_regex() -> str:
    return printed_regex(SPEC, "3.1")


def test_the_guide_prints_the_same_regexes() -> None:
    blocks = re.findall(r"```\n(\[a-[ez]\][^\n]*)\n```", GUIDE.read_text(encoding="utf-8"))
    assert blocks == [sps_regex(), stn_regex()]


def test_the_regexes_use_only_posix_extended_syntax() -> None:
    for regex in (sps_regex(), sps_regex_all_seats(), stn_regex()):
        assert "(?" not in regex and "\\d" not in regex and "\\s" not in regex


def well_formed_sps(text: str) -> bool:
    try:
        parse_sps(text)
    except MalformedPositionError:
        return False
    except NotationError:
        return True  # well-formed, but the meaning checks refuse it
    return True


def well_formed_stn(text: str) -> bool:
    try:
        parse_stn(text)
    except MalformedTurnError:
        return False
    return True


def positions(seed: int, games: int) -> Iterator[Position]:
    """Positions of random games with random gods, every phase."""
    rng = random.Random(seed)
    for _ in range(games):
        gods = tuple(rng.sample(GODS, 2)) if rng.random() < 0.8 else ("mortal", "mortal")
        pos = Position.start(gods)  # type: ignore[arg-type]
        while not pos.is_lost():
            yield pos
            transition = rng.choice(pos.transitions())
            if transition.win:
                break
            pos = transition.position


def nseat_positions(seed: int, games: int) -> Iterator[Position]:
    """Positions of random three- and four-seat games, eliminations included (SPEC.md section 15)."""
    rng = random.Random(seed)
    gods = [g for g in GODS if g != "mortal"]
    for game in range(games):
        pos: Position | None = Position.start(tuple(rng.sample(gods, 3 + game % 2)))
        while pos is not None:
            yield pos
            transitions = pos.transitions()
            if not transitions:
                pos = pos.eliminate() if pos.nseats == 3 else None
                continue
            transition = rng.choice(transitions)
            pos = None if transition.win else transition.position


@functools.cache
def valid_corpus() -> tuple[list[str], list[str]]:
    """Real SPS (the perft suites, random games) and real STN (legal turns of those games)."""
    sps = [line.split("\t")[0] for f in sorted((ROOT / "protocol" / "perft").glob("*.tsv"))
           for line in f.read_text().splitlines() if line and not line.startswith("#")]
    stn: list[str] = []
    rng = random.Random(7)
    for pos in [*positions(seed=12, games=12), *nseat_positions(seed=12, games=6)]:
        sps.append(pos.sps())
        turns = pos.legal_turns()
        stn += rng.sample(turns, min(5, len(turns)))
    stn += ["b3-b4+c5", "b3xc4+b4", "c2-c3-d4+e5", "b3-d3,c2-e2+e1", "b3-c3+d4D", "+a1b2-b1+c1", "+e1", "d3,b3"]
    return sps, stn


MUTATION_ALPHABET = "abcdefxyz012345689;/,-+[]DXB \t.pum"


def near_misses(valid: list[str], count: int, seed: int) -> list[str]:
    """Valid tokens with one to three characters dropped, doubled, replaced or inserted."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        text = rng.choice(valid)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(text) + 1)
            op = rng.randrange(4)
            if op == 0 and text:
                text = text[:i] + text[i + 1:]
            elif op == 1:
                text = text[:i] + text[i - 1: i] + text[i:]
            elif op == 2 and i < len(text):
                text = text[:i] + rng.choice(MUTATION_ALPHABET) + text[i + 1:]
            else:
                text = text[:i] + rng.choice(MUTATION_ALPHABET) + text[i:]
        out.append(text)
    return out


def grep_matches(regex: str, lines: list[str]) -> list[bool]:
    """Which ``lines`` POSIX ``grep -E -x`` matches with ``regex`` (how a C engine's regcomp reads it)."""
    proc = subprocess.run(
        ["grep", "-E", "-x", "-n", "-e", regex], input="\n".join(lines) + "\n",
        capture_output=True, text=True, env={"LC_ALL": "C"}, check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    hits = {int(line.split(":", 1)[0]) for line in proc.stdout.splitlines()}
    return [i + 1 in hits for i in range(len(lines))]


@pytest.mark.parametrize("kind", ["sps", "stn"])
def test_printed_regex_agrees_with_the_parser_on_valid_tokens_and_near_misses(kind: str) -> None:
    sps, stn = valid_corpus()
    valid, regex, parser = (sps, sps_regex_all_seats(), well_formed_sps) if kind == "sps" else (stn, stn_regex(), well_formed_stn)
    misses = near_misses(valid, 4000, seed=len(kind))
    corpus = valid + misses + [t.upper() for t in valid[:50]] + ["", "-", "+", "b3", "b3-b4+", "a0,b1", "f1,a1"]
    assert all(parser(t) for t in valid)
    assert sum(not parser(t) for t in misses) > len(misses) // 3  # the near misses do miss
    disagree = [t for t in corpus if (re.fullmatch(regex, t) is not None) != parser(t)]
    assert not disagree, disagree[:10]
    assert grep_matches(regex, corpus) == [parser(t) for t in corpus]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=MUTATION_ALPHABET, max_size=70))
def test_printed_regexes_agree_with_the_parsers_on_any_text(text: str) -> None:
    assert (re.fullmatch(sps_regex_all_seats(), text) is not None) == well_formed_sps(text)
    assert (re.fullmatch(stn_regex(), text) is not None) == well_formed_stn(text)


def test_the_two_seat_regex_is_the_first_alternative_of_the_all_seats_one() -> None:
    assert sps_regex_all_seats().startswith("(" + sps_regex() + "|")
    sps, _ = valid_corpus()
    for text in sps + near_misses(sps, 2000, seed=15):
        two_gods = text.split(";", 1)[0].count("/") == 1
        assert (re.fullmatch(sps_regex(), text) is not None) == (two_gods and well_formed_sps(text)), text


# --- the check summary -------------------------------------------------------------------------

def printed_summaries() -> list[str]:
    body = SPEC.read_text(encoding="utf-8").split("## 7. ", 1)[1]
    m = re.search(r"The last line counts the results\..*?```\n(.*?)\n```", body, re.S)
    assert m is not None
    return m.group(1).splitlines()


def last_line(args: list[str]) -> str:
    result = CliRunner().invoke(main, ["check", *args])
    return result.output.splitlines()[-1]


def test_the_check_summaries_in_spec_are_what_check_prints() -> None:
    false = shutil.which("false")
    assert false is not None
    crash_once = f"cmd={sys.executable} arg={ROOT / 'tests' / 'gallery' / 'faulty.py'} arg=crash-infinite"
    assert printed_summaries() == [
        last_line(["greedy"]),                                   # a bundled engine, every god
        C_EXAMPLE_SUMMARY,                                       # examples/c (tests/test_c_example.py runs it)
        last_line([crash_once, "--gods", "athena", "--timeout", "3"]),  # crashes once, is restarted
        last_line([f"cmd={false}", "--timeout", "3"]),          # never finishes the handshake
    ]


# --- the guide's transcript --------------------------------------------------------------------

def test_the_guides_game_is_legal_and_ends_as_its_result_says() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    block = text.split("## 2. One whole game", 1)[1].split("```\n", 2)[1]
    lines = [line[3:] for line in block.splitlines() if line.startswith(("R: ", "E: "))]
    assert lines[0] == "sei 1" and "seiok 1" in lines and lines[-1].startswith("result ")
    position: Position | None = None
    final: Transition | None = None
    asked = answered = 0
    for line in lines:
        if line.startswith("position startpos"):
            position = Position.start()
            for turn in line.split()[3:]:
                position = position.play(turn).position
        elif line.startswith("go "):
            asked += 1
        elif line.startswith("bestmove "):
            assert position is not None
            turn = line.split()[1]
            final = position.play(turn)  # raises if illegal
            assert final.stn == turn, "the engine should send canonical STN"
            answered += 1
    assert asked == answered > 0 and final is not None
    winner, tag = lines[-1].split()[1:]
    assert final.termination == tag
    assert winner == ("1-0" if final.position.player == 2 else "0-1")
