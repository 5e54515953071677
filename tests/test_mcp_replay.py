"""Which lines ``maple-mcp`` may answer from a record, and what the recorder does with the SDK's."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from maple_entrypoints.mcp_recorded import MAX_ANSWERS, RecordedAnswers
from maple_entrypoints.mcp_recorder import Recorder
from maple_entrypoints.mcp_replay import (
    Conversation,
    answer_heads,
    answer_line,
    id_token,
    line_start,
    parse_line,
    split_answer,
    with_id,
)
from maple_entrypoints.mcp_run_key import run_key
from maple_entrypoints.settings import configuration_values
from tests.mcp_start_support import envelope, initialize, notification, request

LIST = request(1, "tools/list").encode()


@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\r\n',  # the SDK splits at \r too
        b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"a":1.0}}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"a":NaN}}',
        b'{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/list","extra":true}',
        b'{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
        b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}',
        b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"a":"\\ud800"}}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"a":"\xff"}}',
        b'[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]',
        b'{"jsonrpc":"2.0","id":1,"result":{}}',
        b"\xef\xbb\xbf" + LIST,
        b"{not json",
    ],
)
def test_a_line_the_sdk_could_read_differently_is_never_matched(line: bytes) -> None:
    assert parse_line(line) is None


def test_equal_json_is_one_request_whatever_its_spacing_and_key_order() -> None:
    a = parse_line(
        b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"b":[1,{"c":"\\u00e9"}],"a":2}}'
    )
    b = parse_line(
        b'{ "method" : "m", "params": {"a": 2, "b": [1, {"c": "\xc3\xa9"}]}, "id": 9,'
        b' "jsonrpc": "2.0" }\n'
    )
    assert a is not None
    assert b is not None
    assert (a.method, a.params) == (b.method, b.params)
    assert (a.id, b.id) == (1, 9)


def keys(*lines: str) -> list[str | None]:
    conversation = Conversation()
    return [conversation.key(parse_line(text.encode())) for text in lines]


def test_a_handshake_conversation_keys_each_request_by_the_initialize_before_it() -> None:
    first = keys(initialize("2025-06-18"), request(1, "tools/list"), request(2, "tools/call"))
    other = keys(initialize("2025-11-25"), request(1, "tools/list"))
    assert first[0] is not None
    assert first[1] is not None
    assert first[2] is None  # not a recordable method
    assert first[1] != other[1]  # another initialize, another conversation
    after = keys(initialize("2025-06-18"), notification("notifications/initialized"), LIST.decode())
    assert after[2] != first[1]  # initialized counts, as it does for the SDK


def test_the_conversation_stops_matching_where_the_sdk_could_diverge() -> None:
    assert keys(request(1, "ping"), request(2, "tools/list")) == [None, None]  # no handshake
    assert keys(notification("notifications/initialized"), initialize("2025-06-18")) == [None, None]
    twice = keys(initialize("2025-06-18"), initialize("2025-06-18", 1), request(2, "tools/list"))
    assert twice[1:] == [None, None]
    broken = keys(initialize("2025-06-18"), "{not json", request(2, "tools/list"))
    assert broken[1:] == [None, None]


def test_a_modern_conversation_keys_every_request_alone() -> None:
    meta = envelope()
    alone = keys(request(1, "tools/list", meta))
    after = keys(
        request(1, "server/discover", meta),
        request(2, "tools/call", meta),
        request(3, "tools/list", meta),
    )
    assert alone[0] == after[2] is not None


@pytest.mark.parametrize(
    ("request_id", "token"),
    [
        (1, "1"),
        (-5, "-5"),
        ("listen:0", '"listen:0"'),
        ("a b", None),
        ('a"b', None),
        (2**60, None),
        (True, None),
        ("x" * 200, None),
    ],
)
def test_only_plain_ids_are_answered_from_a_record(request_id: object, token: str | None) -> None:
    assert id_token(request_id) == token  # type: ignore[arg-type]


def test_an_answer_is_the_sdks_line_with_the_id_put_back() -> None:
    sdk = b'{"jsonrpc":"2.0","id":"maple-replayed-1","result":{"tools":[]}}\n'
    start = line_start(sdk)
    assert start == answer_heads("tools/list")[0] + '"maple-replayed-1"'
    tail = split_answer(sdk.decode().rstrip("\n"), start)
    assert tail == ',"result":{"tools":[]}}'
    replayed = answer_line(answer_heads("tools/list")[0] + "7", tail)
    assert replayed == b'{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}\n'
    request_line = b'{"jsonrpc":"2.0","id":7,"method":"roots/list"}'
    assert split_answer(request_line.decode(), str(line_start(request_line))) is None
    assert line_start(b'{"jsonrpc":"2.0","method":"notifications/message","params":{}}') is None
    message = parse_line(b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"z":1,"a":2}}')
    assert message is not None
    assert (
        with_id(message, "p") == b'{"jsonrpc":"2.0","id":"p","method":"m","params":{"z":1,"a":2}}\n'
    )


def test_a_listen_is_answered_by_its_acknowledgement_which_carries_its_id() -> None:
    ack = (
        b'{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":'
        b'{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen:0"},"notifications":{}}}\n'
    )
    start = line_start(ack)
    assert start == answer_heads("subscriptions/listen")[0] + '"listen:0"'
    tail = split_answer(ack.decode().rstrip("\n"), start)
    assert tail == '},"notifications":{}}}'
    assert answer_line(answer_heads("subscriptions/listen")[0] + "3", tail) == ack.replace(
        b'"listen:0"', b"3"
    )


class Saves:
    def __init__(self) -> None:
        self.saved: list[dict[str, str]] = []
        self.mismatched: list[str] = []

    def recorder(self, known: dict[str, str] | None = None) -> Recorder:
        return Recorder(known or {}, save=self.saved.append, mismatch=self.mismatched.append)


HEAD = answer_heads("tools/list")[0]


def sdk(token: str, result: str) -> bytes:
    return f'{HEAD}{token},"result":{result}}}\n'.encode()


def test_the_recorder_saves_once_every_recordable_answer_came() -> None:
    saves = Saves()
    recorder = saves.recorder({"old": ',"result":{}}'})
    recorder.learn([HEAD + "1"], "k1")
    listen = [head + '"b"' for head in answer_heads("subscriptions/listen")]
    recorder.learn(listen, "k2")  # a listen refused is answered, not acknowledged
    assert recorder.passes(sdk("1", '{"a":1}'))
    assert saves.saved == []  # k2 still to come
    assert recorder.passes(b'{"jsonrpc":"2.0","method":"notifications/message"}\n')
    assert saves.saved == []
    assert recorder.passes(sdk('"b"', "{}"))
    assert saves.saved == [
        {"old": ',"result":{}}', "k1": ',"result":{"a":1}}', "k2": ',"result":{}}'}
    ]
    recorder.close()
    assert not recorder.listening


def test_the_recorder_drops_the_sdks_answer_to_a_replayed_request_and_checks_it() -> None:
    saves = Saves()
    recorder = saves.recorder({"k": ',"result":{"a":1}}'})
    recorder.expect(HEAD + '"p1"', "k", ',"result":{"a":1}}')
    recorder.expect(HEAD + '"p2"', "k", ',"result":{"a":1}}')
    assert not recorder.passes(sdk('"p1"', '{"a":1}'))
    assert saves.mismatched == []
    assert not recorder.passes(sdk('"p2"', '{"a":2}'))  # still never sent twice
    assert saves.mismatched == ["k"]
    recorder.learn([HEAD + "3"], "k3")
    assert recorder.passes(sdk("3", "{}"))
    recorder.finish()
    assert saves.saved == []  # nothing is saved once the record proved wrong


def KEY(i: int = 0) -> str:  # noqa: N802 - a constant's maker
    return json.dumps(["modern", "tools/list", str(i)])


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "cache" / "maple" / "mcp-answers"


def test_recorded_answers_survive_a_restart_and_only_their_newest_are_kept(folder: Path) -> None:
    recorded = RecordedAnswers(folder, "k")
    assert recorded.load() == {}
    answers = {KEY(i): f',"result":{{"n":{i}}}}}' for i in range(MAX_ANSWERS + 5)}
    recorded.save(answers)
    loaded = recorded.load()
    assert list(loaded) == list(answers)[5:]
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(recorded.path.stat().st_mode) == 0o600
    recorded.drop()
    assert recorded.load() == {}


@pytest.mark.parametrize(
    "spoil",
    [
        lambda path: path.write_text("{not json"),
        lambda path: path.write_text(json.dumps({"format": 99, "answers": {}})),
        lambda path: path.write_text(json.dumps({"format": 1, "answers": {KEY(): "<script>"}})),
        lambda path: path.write_text(json.dumps({"format": 1, "answers": {KEY(): ',"result":{'}})),
        lambda path: path.write_text(json.dumps({"format": 1, "answers": {"k": ',"result":{}}'}})),
        lambda path: path.write_text(json.dumps({"format": 1, "answers": [KEY()]})),
        lambda path: path.write_text(
            json.dumps({"format": 1, "answers": {KEY(): ',"result":\n{}}\n{"jsonrpc":"2.0"}'}})
        ),
    ],
)
def test_a_broken_record_is_ignored_and_replaced(folder: Path, spoil: object) -> None:
    recorded = RecordedAnswers(folder, "k")
    recorded.save({KEY(): ',"result":{}}'})
    spoil(recorded.path)  # type: ignore[operator]
    assert recorded.load() == {}
    recorded.save({KEY(): ',"result":{}}'})
    assert recorded.load() == {KEY(): ',"result":{}}'}


def test_a_record_another_user_could_have_written_is_never_read(
    folder: Path, tmp_path: Path
) -> None:
    recorded = RecordedAnswers(folder, "k")
    recorded.save({KEY(): ',"result":{}}'})
    folder.chmod(0o777)
    assert recorded.load() == {}
    folder.chmod(0o700)
    elsewhere = tmp_path / "planted.json"
    os.replace(recorded.path, elsewhere)
    recorded.path.symlink_to(elsewhere)
    assert recorded.load() == {}


def test_the_run_key_follows_the_configuration_but_no_secret_value() -> None:
    base = {"MAPLE_STORE": "file"}
    key = run_key(configuration_values(base), [])
    assert run_key(configuration_values(base), []) == key
    assert run_key(configuration_values({**base, "MAPLE_AGENTS": "codex"}), []) != key
    assert run_key(configuration_values({**base, "MAPLE_STORE": ""}), []) != key
    assert run_key(configuration_values(base), ["--flag"]) != key
    token = run_key(configuration_values({**base, "GITHUB_TOKEN": "ghp_one"}), [])
    assert token != key
    assert run_key(configuration_values({**base, "GITHUB_TOKEN": "ghp_two"}), []) == token
    assert "ghp_one" not in json.dumps(configuration_values({"GITHUB_TOKEN": "ghp_one"}))


def test_the_run_key_is_the_same_for_every_session() -> None:
    """Claude Code gives each conversation its own CLAUDE_CODE_SESSION_ID, and maple watch each
    agent its MAPLE_SESSION: a key that followed them would never be served twice."""
    base = {"MAPLE_STORE": "file"}
    key = run_key(configuration_values(base), [])
    for session in ({"CLAUDE_CODE_SESSION_ID": "c-1"}, {"MAPLE_SESSION": "mw-0123456789ab"}):
        assert run_key(configuration_values({**base, **session}), []) == key
