"""Before anything starts, every port the stack needs is checked: a taken one is named in one line with the
setting that moves it, and the embedded graph engine moves to free ports by itself unless told where to listen."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator

import pytest
from django.conf import settings

from lineage_app.stack.management.commands.run_stack import StackError, plan_stack
from lineage_app.stack.ports import bolt_answers, free_port_after, port_free


@pytest.fixture
def hold() -> Iterator[Callable[[], int]]:
    """Each `hold()` listens on a fresh loopback port, as another program would, until the test ends."""
    sockets: list[socket.socket] = []

    def listen() -> int:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        sockets.append(sock)
        return int(sock.getsockname()[1])

    yield listen
    for sock in sockets:
        sock.close()


def _free() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def graph_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Free graph ports by default, set the way the environment would set them (not explicitly)."""
    monkeypatch.delenv("NEO4J_URI", raising=False)
    monkeypatch.delenv("GRAPH_EMBEDDED_HTTP_PORT", raising=False)
    monkeypatch.setattr(settings, "NEO4J_URI", f"bolt://127.0.0.1:{_free()}")
    monkeypatch.setattr(settings, "GRAPH_EMBEDDED_HTTP_PORT", _free())
    yield


def test_a_listening_port_is_not_free_and_a_suggestion_skips_it(hold: Callable[[], int]) -> None:
    port = hold()
    assert not port_free(port)
    suggestion = free_port_after(port - 1, avoid={port + 1})
    assert suggestion not in (port, port + 1) and port_free(suggestion)


def test_a_socket_that_does_not_speak_bolt_is_not_a_graph_engine(hold: Callable[[], int]) -> None:
    assert not bolt_answers("127.0.0.1", hold(), timeout=0.5)
    assert not bolt_answers("127.0.0.1", _free(), timeout=0.5)


def test_a_taken_web_port_is_one_line_naming_it_and_the_setting_that_moves_it(
    hold: Callable[[], int], graph_settings: None
) -> None:
    port = hold()
    with pytest.raises(StackError) as caught:
        plan_stack(port=port)
    message = str(caught.value)
    assert "\n" not in message
    suggestion = int(message.split("PORT=")[1].split(" ")[0])
    assert message == (
        f"port {port} (web server) is in use by another program: "
        f"set PORT={suggestion} (make run PORT={suggestion}) or stop that program"
    )
    assert port_free(suggestion)


def test_a_taken_bolt_port_the_user_chose_is_an_error(
    hold: Callable[[], int], graph_settings: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    bolt = hold()
    monkeypatch.setenv("NEO4J_URI", f"bolt://127.0.0.1:{bolt}")
    monkeypatch.setattr(settings, "NEO4J_URI", f"bolt://127.0.0.1:{bolt}")
    with pytest.raises(
        StackError,
        match=rf"^port {bolt} \(embedded graph engine, Bolt\) is in use by another "
        rf"program: set NEO4J_URI=bolt://127\.0\.0\.1:\d+ or stop that program$",
    ):
        plan_stack(port=_free())


def test_taken_graph_ports_nobody_chose_move_to_free_ones_and_say_so(
    hold: Callable[[], int], graph_settings: None
) -> None:
    bolt, http = hold(), hold()
    settings.NEO4J_URI = f"bolt://127.0.0.1:{bolt}"
    settings.GRAPH_EMBEDDED_HTTP_PORT = http
    web = _free()
    plan = plan_stack(port=web)
    assert plan.start_graph
    new_bolt = int(plan.neo4j_uri.rsplit(":", 1)[1])
    assert plan.neo4j_uri.startswith("bolt://127.0.0.1:") and new_bolt not in (bolt, web, http)
    assert port_free(new_bolt)
    assert plan.graph_http_port not in (http, web, new_bolt) and port_free(plan.graph_http_port)
    assert plan.notes == [
        f"port {bolt} is in use by another program: the embedded graph engine listens on {plan.neo4j_uri} "
        f"instead (set NEO4J_URI to choose)",
        f"port {http} is in use by another program: the embedded graph engine's HTTP listener takes "
        f"{plan.graph_http_port} instead (set GRAPH_EMBEDDED_HTTP_PORT to choose)",
    ]


def test_a_taken_graph_http_port_the_user_chose_is_an_error(
    hold: Callable[[], int], graph_settings: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    http = hold()
    monkeypatch.setenv("GRAPH_EMBEDDED_HTTP_PORT", str(http))
    settings.GRAPH_EMBEDDED_HTTP_PORT = http
    with pytest.raises(
        StackError,
        match=rf"^port {http} \(embedded graph engine, HTTP\) is in use by another "
        rf"program: set GRAPH_EMBEDDED_HTTP_PORT=\d+ or stop that program$",
    ):
        plan_stack(port=_free())


def test_a_taken_redis_port_is_checked_only_when_the_stack_would_start_redis(
    hold: Callable[[], int], graph_settings: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not plan_stack(port=_free()).start_redis  # the test session's Redis answers: nothing to start
    port = hold()
    monkeypatch.setattr(settings, "REDIS_URL", f"redis://127.0.0.1:{port}/0")
    with pytest.raises(
        StackError,
        match=rf"^port {port} \(Redis\) is in use by another program: "
        rf"set REDIS_URL=redis://127\.0\.0\.1:\d+/0 or stop that program$",
    ):
        plan_stack(port=_free())


def test_every_taken_port_gets_its_own_line(
    hold: Callable[[], int], graph_settings: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    redis_port, web = hold(), hold()
    monkeypatch.setattr(settings, "REDIS_URL", f"redis://127.0.0.1:{redis_port}/0")
    with pytest.raises(StackError) as caught:
        plan_stack(port=web)
    lines = str(caught.value).splitlines()
    assert [line.split(" (")[0] for line in lines] == [f"port {redis_port}", f"port {web}"]
